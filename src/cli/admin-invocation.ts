/**
 * The admin command as the start banner prints it. The server's settings often come from the command line that
 * started it (`PORT=9000 DATABASE_URL=… npm start`), which a second terminal does not have: without them the
 * command would write its keys into another database (the key then fails with 401 on the server) and print the
 * default port. So the variables that decide where the data lives and how the server is reached are written in
 * front of it whenever they differ from their defaults.
 */
import { type Config, variables } from '../config.js';

const defaultOf = (name: string): string => variables.find((variable) => variable.name === name)?.default ?? '';

/** A shell word for the value: as it is when the shell leaves it alone, single-quoted otherwise. */
export function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The URL with its password, if any, replaced by a placeholder: the banner ends up in logs. */
export function withoutPassword(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (!parsed.password) return url;
  return `${parsed.protocol}//${parsed.username}:<password>@${parsed.host}${parsed.pathname}${parsed.search}`;
}

/**
 * Where clients reach the server, without the `/v1`: PUBLIC_BASE_URL when set (without a trailing `/`, so that
 * `${base}/v1` stays one path), else `https://localhost:<port>`. The start banner passes the port it listens on, the
 * admin command the configured PORT: the same rule, so the two print the same address.
 */
export function serverBaseUrl(config: Pick<Config, 'publicBaseUrl'>, port: number): string {
  return config.publicBaseUrl === null ? `https://localhost:${port}` : config.publicBaseUrl.replace(/\/+$/, '');
}

/** `npm run admin -- <args>` preceded by the settings it needs to reach this server's data and print its address. */
export function adminInvocation(config: Config, port: number, args: string): string {
  const settings: string[] = [];
  if (config.databaseUrl !== null) settings.push(`DATABASE_URL=${shellWord(withoutPassword(config.databaseUrl))}`);
  else if (config.dataDir !== defaultOf('DATA_DIR')) settings.push(`DATA_DIR=${shellWord(config.dataDir)}`);
  if (config.publicBaseUrl !== null) settings.push(`PUBLIC_BASE_URL=${shellWord(config.publicBaseUrl)}`);
  else if (String(port) !== defaultOf('PORT')) settings.push(`PORT=${port}`);
  return [...settings, 'npm run admin --', args].join(' ');
}
