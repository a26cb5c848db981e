import type { Socket } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';

/** The parts of smtp-server's connection and server internals this subclass drives. */
interface ConnectionInternals {
  _setListeners(callback: () => void): void;
  connectionReady(): void;
  send(code: number, message: string, command?: string | false): void;
  on(event: string, fn: (arg: unknown) => void): void;
  name: string;
}
interface ServerInternals {
  connections: Set<unknown>;
  _onError(err: unknown): void;
  _onClientConnect(data: unknown): void;
}

export interface FastGreetingOptions extends SMTPServerOptions {
  /**
   * Milliseconds to hold the 220 greeting. smtp-server hard-codes 100 ms here (to catch clients
   * that talk before the greeting), which caps a one-message-per-connection client at ~10 msg/s.
   * 0 (default): greet on the next turn of the event loop. Either way a client that writes
   * before the greeting is answered `421 You talk too soon` by the library, as before.
   */
  greetingDelayMs?: number;
}

/**
 * smtp-server without the fixed 100 ms wait before every greeting (DESIGN.md: Known traps).
 * connect() is the library's own five lines with `connection.init()` replaced by the same steps
 * minus the fixed timer: listeners, the maxClients check, then connectionReady().
 */
export class FastGreetingSMTPServer extends SMTPServer {
  private readonly greetingDelayMs: number;

  constructor(options: FastGreetingOptions) {
    const { greetingDelayMs, ...rest } = options;
    super(rest);
    this.greetingDelayMs = Math.max(0, greetingDelayMs ?? 0);
  }

  override connect(socket: Socket, socketOptions: unknown): void {
    const self = this as unknown as ServerInternals & { options: SMTPServerOptions };
    const connection = new (SMTPConnection as unknown as new (server: unknown, socket: Socket, opts: unknown) => ConnectionInternals)(this, socket, socketOptions);
    self.connections.add(connection);
    connection.on('error', (err) => self._onError(err));
    connection.on('connect', (data) => self._onClientConnect(data));
    connection._setListeners(() => {
      const max = self.options.maxClients;
      if (max && self.connections.size > max) {
        connection.send(421, connection.name + ' Too many connected clients, try again in a moment', false);
        return;
      }
      if (this.greetingDelayMs > 0) setTimeout(() => connection.connectionReady(), this.greetingDelayMs).unref();
      else setImmediate(() => connection.connectionReady());
    });
  }
}
