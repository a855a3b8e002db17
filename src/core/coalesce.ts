/**
 * Calls of `run` under one key share runs: while a run of the key is in flight, the calls that
 * arrive join the next one, which starts once the current one has settled; a call's answer is
 * always that of a run that started after the call did. So a run that reads state when it starts
 * (a job queued after a commit, which then reads what was committed) serves every call, and a
 * wave of calls makes two runs, not one each. A run's failure is the failure of every call it
 * served.
 */
export function coalescing<K>(run: (key: K) => Promise<void>): (key: K) => Promise<void> {
  const inFlight = new Map<K, { running: Promise<void>; next?: Promise<void> }>();
  const begin = (key: K): Promise<void> => {
    const running = Promise.resolve().then(() => run(key));
    const state: { running: Promise<void>; next?: Promise<void> } = { running };
    inFlight.set(key, state);
    const settled = () => {
      // A call joined in the meantime: the next run takes the key's place (begin, below).
      if (!state.next) inFlight.delete(key);
    };
    running.then(settled, settled);
    return running;
  };
  return (key) => {
    const state = inFlight.get(key);
    if (!state) return begin(key);
    state.next ??= state.running.then(
      () => begin(key),
      () => begin(key),
    );
    return state.next;
  };
}
