/** Writing an export's output whole: readers see all of it or none of it. */

/** Where an export writes before it renames its output into place: beside it, so the rename stays on one disk. */
export function partialPath(out: string): string {
  return `${out}.partial-${Deno.pid}`;
}

/**
 * Runs `write(tmp)` on a fresh temporary path beside `out`, then renames it to `out`: readers see all of the output or
 * none of it. On any error the temporary file or folder is removed and the error rethrown.
 */
export async function writeWhole<T>(out: string, write: (tmp: string) => Promise<T>): Promise<T> {
  const tmp = partialPath(out);
  try {
    const r = await write(tmp);
    await Deno.rename(tmp, out);
    return r;
  } catch (e) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    throw e;
  }
}
