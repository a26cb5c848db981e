import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';

/** The parts of smtp-server's connection and server internals this subclass drives. */
interface ConnectionInternals {
  _setListeners(callback: () => void): void;
  _onCommand(command: Buffer, callback?: () => void): void;
  connectionReady(): void;
  send(code: number, message: string, command?: string | false): void;
  close(): void;
  on(event: string, fn: (arg: unknown) => void): void;
  name: string;
  remoteAddress: string;
  _handlerPending?: boolean;
  _dataStream?: unknown;
}
interface ServerInternals {
  connections: Set<unknown>;
  _onError(err: unknown): void;
  _onClientConnect(data: unknown): void;
  _expectsProxyHeader(socket: Socket): boolean;
}
type ProxyCallback = (err: Error | null, options?: { id: string; ignore?: boolean }) => void;

/**
 * Session ids (smtp-server's `session.id`, for logs): a random prefix per process and a counter,
 * 16 base-32 characters like the library's own, which draws 10 random bytes and converts them
 * through a BigInt for every connection (~2 % of the main thread's time per message with a new
 * connection per message, bench/README.md session 7). Unique within a process, as logs need.
 */
const SESSION_PREFIX = randomBytes(5).readUIntBE(0, 5).toString(32).padStart(8, '0');
let sessionCounter = 0;
export function nextSessionId(): string {
  sessionCounter = (sessionCounter + 1) % 0xffffffffff;
  return SESSION_PREFIX + sessionCounter.toString(32).padStart(8, '0');
}

/** addressKey answers, per address (a client reconnects from the same few addresses); bounded. */
const addressKeys = new Map<string, string>();
const ADDRESS_KEYS_MAX = 1_000;

/**
 * Per-session and per-address limits smtp-server does not have (issue #10 item 2: one address
 * could hold every slot of the global maxClients, and NOOP resets the idle timer).
 */
export interface SessionLimits {
  /** Open connections one address may hold (IPv6: one /64); past it a new one gets 421. 0: no cap. */
  maxConnectionsPerAddress: number;
  /**
   * Commands in a row that make no progress towards a message (everything but RCPT, DATA and
   * QUIT: NOOP, RSET, HELP, VRFY, EHLO, MAIL, unknown ones); DATA starts the count again. Past
   * it: 421 and the connection is closed. 0: no cap.
   */
  maxCommandsWithoutProgress: number;
  /**
   * Longest session, ms. Once over, an idle session is closed with 421 at once and a busy one at
   * its next command; one still receiving a message is cut at twice this. 0: no cap.
   */
  maxSessionMs: number;
}

export interface FastGreetingOptions extends SMTPServerOptions {
  /**
   * Milliseconds to hold the 220 greeting. smtp-server hard-codes 100 ms here (to catch clients
   * that talk before the greeting), which caps a one-message-per-connection client at ~10 msg/s.
   * 0 (default): greet in the turn that accepted the connection (no client can have written
   * yet). With a delay, a client that writes before the greeting is answered `421 You talk too
   * soon` by the library, as before.
   */
  greetingDelayMs?: number;
  limits?: Partial<SessionLimits>;
}

/** Commands that move a transaction forward (DATA also resets the count, see SessionLimits). */
const PROGRESS = new Set(['RCPT', 'DATA', 'QUIT']);

/**
 * The command's verb, upper-cased, as smtp-server reads it (the text up to the first space),
 * decoded from the line's first bytes only: a MAIL or RCPT line with long parameters is not
 * turned into a string and split whole for its first word.
 */
export function commandName(command: Buffer | string | undefined | null): string {
  if (!command) return '';
  if (typeof command === 'string') return command.split(' ')[0].toUpperCase();
  const space = command.indexOf(0x20);
  return command.toString('utf8', 0, space === -1 ? command.length : space).toUpperCase();
}

/**
 * The key an address is counted under: IPv4 (also IPv4-mapped IPv6) as itself, IPv6 by its /64,
 * since one host is routinely given a whole /64 and could otherwise use a fresh address per
 * connection.
 */
export function addressKey(address: string): string {
  const known = addressKeys.get(address);
  if (known !== undefined) return known;
  const key = parseAddressKey(address);
  if (addressKeys.size >= ADDRESS_KEYS_MAX) addressKeys.clear();
  addressKeys.set(address, key);
  return key;
}

function parseAddressKey(address: string): string {
  try {
    let a = ipaddr.parse(address.replace(/%.*$/, ''));
    if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()) a = (a as ipaddr.IPv6).toIPv4Address();
    if (a.kind() === 'ipv4') return a.toString();
    return (a as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16)).join(':') + '::/64';
  } catch {
    return address;
  }
}

/**
 * smtp-server without the fixed 100 ms wait before every greeting (DESIGN.md: Known traps), and
 * with the per-address and per-session limits above. connect() is the library's own five lines
 * with `connection.init()` replaced by the same steps minus the fixed timer: listeners, the
 * maxClients check, then connectionReady() — plus the address cap and the session guards.
 */
export class FastGreetingSMTPServer extends SMTPServer {
  private readonly greetingDelayMs: number;
  private readonly limits: SessionLimits;
  /** Open connections per addressKey(); an entry is removed when its count drops to 0. */
  private readonly perAddress = new Map<string, number>();

  constructor(options: FastGreetingOptions) {
    const { greetingDelayMs, limits, ...rest } = options;
    super(rest);
    this.greetingDelayMs = Math.max(0, greetingDelayMs ?? 0);
    this.limits = { maxConnectionsPerAddress: 0, maxCommandsWithoutProgress: 0, maxSessionMs: 0, ...limits };
  }

  /** Open connections counted against an address (tests and diagnostics). */
  connectionsFrom(address: string): number {
    return this.perAddress.get(addressKey(address)) ?? 0;
  }

  /**
   * Without the PROXY protocol (the library's `useProxy`, off here unless configured), the session
   * starts in the same turn with a cheap id (nextSessionId); the library waits a turn
   * (setImmediate) and draws random bytes first. With it, the library's own code reads the header.
   */
  override _handleProxy(socket: Socket, callback: ProxyCallback): void {
    const self = this as unknown as ServerInternals & { options: SMTPServerOptions & { ignoredHosts?: string[] } };
    if (self._expectsProxyHeader(socket)) {
      (SMTPServer.prototype as unknown as { _handleProxy(s: Socket, cb: ProxyCallback): void })._handleProxy.call(this, socket, callback);
      return;
    }
    callback(null, { id: nextSessionId(), ignore: !!self.options.ignoredHosts?.includes(socket.remoteAddress ?? '') });
  }

  override connect(socket: Socket, socketOptions: unknown): void {
    const self = this as unknown as ServerInternals & { options: SMTPServerOptions };
    const connection = new (SMTPConnection as unknown as new (server: unknown, socket: Socket, opts: unknown) => ConnectionInternals)(this, socket, socketOptions);
    self.connections.add(connection);
    connection.on('error', (err) => self._onError(err));
    connection.on('connect', (data) => self._onClientConnect(data));

    const key = addressKey(connection.remoteAddress);
    const held = (this.perAddress.get(key) ?? 0) + 1;
    this.perAddress.set(key, held);
    const timers: NodeJS.Timeout[] = [];
    socket.once('close', () => {
      const n = (this.perAddress.get(key) ?? 1) - 1;
      if (n > 0) this.perAddress.set(key, n);
      else this.perAddress.delete(key);
      for (const t of timers) clearTimeout(t);
    });

    connection._setListeners(() => {
      const max = self.options.maxClients;
      if (max && self.connections.size > max) {
        connection.send(421, connection.name + ' Too many connected clients, try again in a moment', false);
        return;
      }
      const perAddress = this.limits.maxConnectionsPerAddress;
      if (perAddress && held > perAddress) {
        connection.send(421, `${connection.name} 4.7.0 Too many connections from your address (at most ${perAddress}); close one and try again`, false);
        return;
      }
      this.guardSession(connection, socket, timers);
      if (this.greetingDelayMs > 0) setTimeout(() => connection.connectionReady(), this.greetingDelayMs).unref();
      // No hold: greet in the connection's own turn. A turn later (setImmediate, as before) caught
      // no early talker either — the socket is not read before the next poll of the event loop —
      // and cost an Immediate per connection.
      else connection.connectionReady();
    });
  }

  /** The command-progress cap and the session lifetime, on one connection. */
  private guardSession(connection: ConnectionInternals, socket: Socket, timers: NodeJS.Timeout[]): void {
    const { maxCommandsWithoutProgress: maxIdle, maxSessionMs } = this.limits;
    let idleCommands = 0;
    let expired = false;
    const onCommand = connection._onCommand.bind(connection);
    connection._onCommand = (command, callback) => {
      const name = commandName(command);
      if (expired) {
        connection.send(421, `${connection.name} 4.4.2 Session too long (at most ${maxSessionMs / 1000} s); reconnect to continue`, name);
        return;
      }
      if (name === 'DATA') idleCommands = 0;
      else if (!PROGRESS.has(name) && maxIdle && ++idleCommands > maxIdle) {
        connection.send(421, `${connection.name} 4.7.0 Too many commands without sending a message (at most ${maxIdle}); closing`, name);
        return;
      }
      onCommand(command, callback);
    };
    if (!maxSessionMs) return;
    // One timer per connection: the cut's is set when the lifetime is over.
    const expire = setTimeout(() => {
      expired = true;
      // A message trickled in byte by byte keeps the session busy; cut it at twice the lifetime.
      const cut = setTimeout(() => socket.destroy(), maxSessionMs);
      cut.unref();
      timers.push(cut);
      // Idle (the client owes us the next command): close now. Otherwise at its next command.
      if (!connection._handlerPending && !connection._dataStream) {
        connection.send(421, `${connection.name} 4.4.2 Session too long (at most ${maxSessionMs / 1000} s); reconnect to continue`, false);
      }
    }, maxSessionMs);
    expire.unref();
    timers.push(expire);
  }
}
