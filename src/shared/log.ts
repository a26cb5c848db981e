/** The logging surface services use; the daemon passes its own (fastify's pino) logger. */
export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  debug(obj: object | string, msg?: string): void;
  /** pino's: whether a line at `level` would be written (hot paths skip building one that would not). */
  isLevelEnabled?(level: string): boolean;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {}, debug() {}, isLevelEnabled: () => false };
