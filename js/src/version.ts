/** Package version; a test keeps it equal to package.json. */
export const VERSION = "0.2.0";
export const CLIENT_VERSION_HEADER = `js @authmw/react@${VERSION}`;
