import pino, { type Logger } from 'pino';

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A logger whose lines (at debug and above) are kept, parsed, in `lines`; `text` is everything it wrote. */
export function recordedLog(): { log: Logger; lines: LogLine[]; text: () => string } {
  const written: string[] = [];
  const lines: LogLine[] = [];
  const log = pino(
    { level: 'debug' },
    {
      write(line: string) {
        written.push(line);
        lines.push(JSON.parse(line) as LogLine);
      },
    },
  );
  return { log, lines, text: () => written.join('') };
}
