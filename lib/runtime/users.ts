/** How a box's user names are read. */

/** True when `user` (a name or `uid[:gid]`, "" for the image's default of root) is root. */
export function isRootUser(user: string): boolean {
  return user === "" || user === "root" || user === "0" || user === "0:0";
}
