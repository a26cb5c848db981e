/**
 * Sleep for at most `ms`, or until the waker handed to `register` is called (batchers wait for
 * work that is on its way). `register(null)` clears the waker once the wait is over.
 */
export function sleepOrWake(ms: number, register: (wake: (() => void) | null) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const t = setTimeout(() => done(), ms);
    const done = () => {
      clearTimeout(t);
      register(null);
      resolve();
    };
    register(done);
  });
}
