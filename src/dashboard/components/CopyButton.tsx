import { useState } from 'preact/hooks';

/** Copies `text` to the clipboard and says so (a status a screen reader announces). */
export function CopyButton(props: { text: string; label?: string }) {
  const [copied, setCopied] = useState<boolean | undefined>(undefined);
  return (
    <span class="copy">
      <button
        type="button"
        onClick={() =>
          navigator.clipboard.writeText(props.text).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {props.label ?? 'Copy'}
      </button>
      <span role="status" class="muted">
        {copied === true ? ' Copied.' : copied === false ? ' Could not copy: select the text and copy it.' : ''}
      </span>
    </span>
  );
}
