export type Listener<T> = (state: T, previous: T) => void;

/** A minimal framework-free store in the style of zustand's vanilla store. */
export interface StoreApi<T> {
  getState(): T;
  setState(partial: Partial<T> | ((state: T) => Partial<T>)): void;
  subscribe(listener: Listener<T>): () => void;
}

export function createStore<T extends object>(initial: T): StoreApi<T> {
  let state = initial;
  const listeners = new Set<Listener<T>>();
  return {
    getState: () => state,
    setState(partial) {
      const patch = typeof partial === "function" ? partial(state) : partial;
      const changed = (Object.keys(patch) as (keyof T)[]).some((key) => !Object.is(patch[key], state[key]));
      if (!changed) return;
      const previous = state;
      state = { ...state, ...patch };
      for (const listener of [...listeners]) listener(state, previous);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
