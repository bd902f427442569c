// The API of client.js, roomd's protocol client (see the comment at the top
// of client.js for the behaviour). Written by hand; the message types come
// from protocol.d.ts, which is generated from the protocol's JSON Schema
// (go generate ./web).

import type {
  Action as ActionMessage,
  Bye,
  Chat,
  ChatMessage,
  Clocks,
  GamePin,
  Notice,
  NoticeMessage,
  Pong,
  Presence,
  Receipt,
  Result,
  Room,
  SeatInfo,
  Snapshot,
  Tick,
  Update,
  Welcome,
} from './protocol.js';

export type { Bye, Chat, ChatMessage, Clocks, GamePin, Notice, NoticeMessage, Pong, Presence, Receipt, Result, SeatInfo, Snapshot, Tick, Update, Welcome };
/** The room's public info, as snapshots and GET /api/rooms/{code} carry it. */
export type RoomInfo = Room;
/** An action as the client sends it. */
export type Action = ActionMessage;

/** The protocol version this client speaks. */
export declare const PROTOCOL: 1;

/** Close codes (PROTOCOL.md §2.3). */
export declare const Close: Readonly<{
  NORMAL: 1000;
  RESTARTING: 4000;
  REPLACED: 4001;
  LEFT: 4002;
  UPDATE_REQUIRED: 4003;
  ROOM_CLOSED: 4004;
  LOCKED: 4005;
  BAD_TOKEN: 4006;
  UNAUTHORIZED: 4007;
  TOO_SLOW: 4008;
  MOVED: 4009;
  TRY_LATER: 4013;
  FLOODING: 4029;
}>;

/** The connection's state (PROTOCOL.md §2.1). */
export type ConnState = 'connecting' | 'online' | 'reconnecting' | 'closed';

/** The connection states, in the order a connection goes through them. */
export declare const States: readonly ConnState[];

/** min(1.75 s, 500 ms·2ⁿ) plus up to 250 ms of jitter: never more than 2 s. */
export declare function backoff(attempt: number, random?: () => number): number;

/** Moves (close 4009) in a row followed at once; past it, the backoff too. */
export declare const MAX_MOVES_IN_A_ROW: 3;

/**
 * The socket URL to follow a moved bye's url to: its own when it is the
 * page's origin (loc), else '' (stay on the same URL).
 */
export declare function movedSocketURL(url: unknown, loc?: { protocol: string; host: string; origin?: string }): string;

/** A fresh action id: 128 random bits, base64url (22 characters). */
export declare function newActionId(): string;

/** ws(s)://host/ws of a page's location. */
export declare function socketURL(loc: { protocol: string; host: string }): string;

/** Time and timers; systemClock is Date.now and the global timers. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(id: unknown): void;
}

export declare const systemClock: Clock;

/** Calls now() when it is a good moment to stop waiting; returns an unsubscribe. */
export type Wake = (now: () => void) => () => void;

/** The global object's online and visibilitychange events. */
export declare const globalWake: Wake;

/** What TokenStore needs of a storage: localStorage's subset. */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** Seat tokens by room code; a storage that fails degrades to memory. */
export declare class TokenStore {
  /** storage: undefined for localStorage (when there is one), null for memory only. */
  constructor(storage?: KeyValueStorage | null, prefix?: string);
  get(room: string): string;
  set(room: string, token: string): void;
  forget(room: string): void;
}

/** The WebSocket API's subset the client uses. */
export interface Socket {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev?: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev?: unknown) => void) | null;
}

export interface RoomClientOptions {
  /** The room code (any case). */
  room: string;
  /** The game and rules version the client runs; sent in hello. */
  game: GamePin;
  /** The name to ask for with a new seat. */
  name?: string;
  /** Join as a spectator (no token is sent). */
  watch?: boolean;
  /** The site's sign-in token (a JWT), sent in hello (PROTOCOL.md §2.9). */
  auth?: string;
  /** A locked room's invite, sent in hello: a seat there needs it. */
  invite?: string;
  /** Default: new TokenStore() (localStorage). */
  tokens?: TokenStore;
  /** Default: this origin's /ws (from globalThis.location). */
  url?: string;
  /** Default: globalThis.WebSocket. */
  WebSocket?: new (url: string) => Socket;
  /** Default: systemClock. */
  clock?: Clock;
  /** Default: Math.random. */
  random?: () => number;
  /** Default: attempt => backoff(attempt, random). */
  backoff?: (attempt: number) => number;
  /** Default: newActionId. */
  newId?: () => string;
  /** Default: globalWake. */
  wake?: Wake;
  /** Default: console. */
  log?: { warn(...args: unknown[]): void; error(...args: unknown[]): void };
}

/** The detail of a 'state' event. */
export interface StateChange {
  state: ConnState;
  /** The close code that led here (0 when none). */
  code: number;
  reason: string;
  /** Closed by 4001: takeBack() may reopen. */
  replaced: boolean;
}

/** A notice as the client hands it on. */
export type ClientNotice = (Notice | NoticeMessage) & {
  /** The action id, when a receipt refused it. */
  receipt?: string;
  /** Made by the client itself ("offline"). */
  local?: boolean;
};

/**
 * The detail of a 'tick' event: one tick of a real-time match (PROTOCOL.md
 * §2.7) that followed the revision and the last tick; the client's rev and
 * lastTick have moved to it.
 */
export interface TickEvent {
  /** The tick's number: the view is now at this tick. */
  tick: number;
  /** The recipient's projected beats of the tick, in order (possibly none). */
  beats: unknown[];
  /** When it arrived, by the clock port (ms). */
  at: number;
}

/** Every event and its detail. */
export interface RoomClientEvents {
  state: StateChange;
  welcome: Welcome;
  snapshot: Snapshot & { epochChanged: boolean };
  update: Update;
  tick: TickEvent;
  receipt: Receipt;
  presence: Presence;
  clocks: Clocks;
  notice: ClientNotice;
  bye: Bye;
  pong: Pong;
  chat: Chat;
  token: { room: string; token: string };
}

/** One room connection (PROTOCOL.md §2). */
export declare class RoomClient {
  constructor(options: RoomClientOptions);
  /** The room code, upper case. */
  readonly room: string;
  readonly state: ConnState;
  /** This connection's seat; null for a spectator. */
  readonly seat: number | null;
  readonly epoch: string;
  /** The last revision seen. */
  readonly rev: number;
  /** The last tick of a real-time match applied (a snapshot's tick, then each tick's); 0 outside one. */
  readonly lastTick: number;
  readonly closeCode: number;
  readonly closeReason: string;
  /** Closed by 4001 (replaced): takeBack() may reopen. */
  readonly replaced: boolean;

  on<K extends keyof RoomClientEvents>(event: K, fn: (detail: RoomClientEvents[K]) => void): () => void;
  start(): void;
  stop(): void;
  /** The host's clock now, ms since the Unix epoch. */
  serverNow(): number;
  /** The fastest ping round trip seen, ms; 0 before the first pong. */
  rtt(): number;
  takeBack(): void;
  connectNow(): void;
  command(command: unknown): Promise<Receipt>;
  control(control: NonNullable<ActionMessage['control']>): Promise<Receipt>;
  resign(): Promise<Receipt>;
  leave(): Promise<Receipt>;
  /** A chat message to the room (PROTOCOL.md §2.10). */
  chat(text: string): Promise<Receipt>;
  /** Reports a chat message (its id) to the operators. */
  report(message: string, reason?: string): Promise<Receipt>;
  resync(): void;
}
