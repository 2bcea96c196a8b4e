// How many AuthClients this page created: more than CREATED_CLIENTS_WARNING_THRESHOLD earn one
// console warning (service-api C9, as the official SDK and the Python package's open apps), since
// each client polls the session cookies and keeps caches of its own: an app wants one.

/** More clients than this earn a warning. */
export const CREATED_CLIENTS_WARNING_THRESHOLD = 10;

let created = 0;

/** Counts a new client; warns once, when the count passes the threshold. */
export function noteClientCreated(): void {
  if (++created === CREATED_CLIENTS_WARNING_THRESHOLD + 1) {
    console.warn("authmw: more than 10 auth clients were created; create one and share it.");
  }
}
