// The signed-in user as observable state (loading, signed-out, signed-in), following the session:
// one load of /users/me per refresh token at a time, and a reload of the same session keeps
// showing its user.
import type { UserState } from "./controller.js";
import type { CurrentUser } from "./models.js";
import type { SessionStore } from "./store.js";
import { createStore, type StoreApi } from "./vanilla.js";

export class UserStateMachine {
  readonly store: StoreApi<{ value: UserState }>;
  private load: { refreshToken: string; promise: Promise<CurrentUser | null> } | null = null;
  /** Refresh token of the session whose user the state shows. */
  private shownSession: string | null = null;

  constructor(
    private readonly session: SessionStore,
    private readonly fetchUser: () => Promise<CurrentUser | null>,
  ) {
    const initial: UserState = session.getState().refreshToken
      ? { status: "loading", user: null }
      : { status: "signed-out", user: null };
    this.store = createStore<{ value: UserState }>({ value: initial });
  }

  getState = (): UserState => this.store.getState().value;

  subscribe = (listener: () => void): (() => void) => this.store.subscribe(() => listener());

  private set(value: UserState) {
    this.store.setState({ value });
  }

  /**
   * The user the service answered a change with, shown when the change was made in the current
   * session (`refreshToken`): an answer that comes after a sign-out or a switch of user (in
   * this tab or another) is that of a session no longer here.
   */
  show(user: CurrentUser, refreshToken: string | null): void {
    if (refreshToken !== this.session.getState().refreshToken) return;
    this.shownSession = refreshToken;
    this.set({ status: "signed-in", user });
  }

  /** reload, but never sharing a load that started before a change. */
  refresh(): Promise<CurrentUser | null> {
    this.load = null;
    return this.reload();
  }

  /** Loads /users/me for the current session into the state (one load per refresh token at a time). */
  reload(): Promise<CurrentUser | null> {
    const { refreshToken } = this.session.getState();
    if (!refreshToken) {
      this.load = null;
      this.shownSession = null;
      this.set({ status: "signed-out", user: null });
      return Promise.resolve(null);
    }
    if (this.load?.refreshToken === refreshToken) return this.load.promise;
    // Reloading the same session keeps showing its user; another session starts from "loading".
    if (this.shownSession !== refreshToken && this.getState().status !== "loading") {
      this.set({ status: "loading", user: null });
    }
    const load = {
      refreshToken,
      promise: this.fetchUser().then(
        (user) => {
          if (this.load === load) {
            this.load = null;
            this.shownSession = user ? refreshToken : null;
            this.set(user ? { status: "signed-in", user } : { status: "signed-out", user: null });
          }
          return user;
        },
        (error: unknown) => {
          if (this.load === load) {
            this.load = null;
            // A failed reload of the shown session keeps its user; otherwise stay loading, with the error.
            if (this.shownSession !== refreshToken) this.set({ status: "loading", user: null, error });
          }
          throw error;
        },
      ),
    };
    this.load = load;
    return load.promise;
  }
}
