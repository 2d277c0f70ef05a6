// A finished download, taken out of the browser's downloads folder. The
// browser (in its sandbox) can put anything there: a link to a host file, a
// FIFO, a folder. Rein copies only a regular file, opened without following a
// link, so nothing of the host is ever read in the browser's name.
import fs from "node:fs";
import { pipeline } from "node:stream/promises";

/** Chromium names downloads by a GUID; any other id could name a path. */
export const DOWNLOAD_ID = /^[0-9A-Za-z-]{1,64}$/;

/** Copies the regular file at `saved` to `to` (which must not exist); anything else there is refused. */
export async function takeDownload(saved: string, to: string): Promise<void> {
  // O_NONBLOCK: a FIFO opens at once instead of waiting for a writer, and is then refused.
  const source = await fs.promises.open(saved, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  try {
    if (!(await source.stat()).isFile()) throw new Error("the browser saved something other than a file");
    await pipeline(source.createReadStream({ autoClose: false }), fs.createWriteStream(to, { flags: "wx", mode: 0o600 }));
  } finally {
    await source.close();
  }
}

/** Removes whatever is at `file`, a link itself rather than what it points to. */
export function removeDownload(file: string): Promise<void> {
  return fs.promises.rm(file, { force: true, recursive: true }).catch(() => {});
}
