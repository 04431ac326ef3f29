/**
 * Offers a file the API returned (an export) as a download: a `blob:` address of this page, followed by a link with
 * `download`. The page's policy allows it (a download is a navigation, not a fetch); the address is released after.
 */
export function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has taken the file once the click's task ends; a minute is generous for slow disks.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The file name a `Content-Disposition: attachment; filename="…"` header gives, or `fallback`. */
export function filenameOf(disposition: string | null, fallback: string): string {
  const match = disposition?.match(/filename="([^"]+)"/);
  return match?.[1] ?? fallback;
}
