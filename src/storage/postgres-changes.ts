// How a Folio process on PostgreSQL learns that the reads it keeps in memory
// (kysely/read-cache.ts) may be out of date: its own writes, counted as they are
// sent and again as they finish, and every other connection's commits to the
// tables those reads come from, which triggers announce (migrations 0006 and
// 0007) to a connection of its own that LISTENs. Another instance's revocation is seen
// once its notice arrives, usually within a millisecond of its commit; RFC 7009
// §2.1 allows such a propagation delay and asks that it be kept small. The
// instance that revoked sees it at once.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { APPLICATIONS_CHANGED, CHANGES_CHANNEL, type DatabaseChanges } from './database-changes.ts';
import type { WriteReach } from './written-tables.ts';

/** How often the listening connection is asked to prove that it still hears every notice. */
const HEARTBEAT_EVERY_MS = 500;
/**
 * Notices are trusted for this long after the last proof was asked for: a
 * connection lost without a word (a network partition) outdates nothing for
 * longer than this, and after it nothing is answered from memory until a proof
 * or a new connection arrives.
 */
export const NOTICES_TRUSTED_FOR_MS = 2000;
/** A proof this late means the connection is gone: it is dropped and made anew. */
const PROOF_GIVES_UP_MS = 5000;
const RECONNECT_AFTER_MS = 1000;
const CONNECT_TIMEOUT_MS = 2000;
/** How the listening connection shows in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = 'folio-changes';
/** Proofs are notices too; any other payload announces a change: APPLICATIONS_CHANGED to applications, '' to the rest. */
const PROOF_PREFIX = 'proof:';

export class PostgresChanges implements DatabaseChanges {
  private counter = 0;
  private applicationsCounter = 0;
  private trustedUntil = -Infinity;
  private listener: pg.Client | undefined;
  /** When the unanswered connect or proof on the listening connection was sent. */
  private awaitedSince: number | undefined;
  private awaitedProof: string | undefined;
  private proofsSent = 0;
  private readonly proofPrefix = `${PROOF_PREFIX}${randomBytes(8).toString('hex')}:`;
  private heartbeats: NodeJS.Timeout | undefined;
  private reconnect: NodeJS.Timeout | undefined;
  private stopped = false;

  /**
   * `onListening` hears when a connection is first proven (true) and when one is
   * lost (false): while none is proven, every bearer look-up reads the database.
   * `elapsed` is a monotonic clock in milliseconds; tests move their own.
   */
  constructor(
    private readonly connectionString: string,
    private readonly onListening: (listening: boolean) => void = () => {},
    private readonly elapsed: () => number = () => performance.now(),
  ) {}

  /** Called as each statement this process sends that can write goes out, and again when it is done. */
  wrote(reach: WriteReach): void {
    if (reach.bearerReads) this.counter++;
    if (reach.applications) this.applicationsCounter++;
  }

  version(): number {
    // Unsure what was missed: a new number every time, so nothing read now is kept.
    if (!this.trusted()) return ++this.counter;
    return this.counter;
  }

  applicationsVersion(): number {
    if (!this.trusted()) return ++this.applicationsCounter;
    return this.applicationsCounter;
  }

  trusted(): boolean {
    // Listening starts with the first cached read (or /metrics scrape, which asks
    // this): the command line never needs it.
    if (this.heartbeats === undefined && !this.stopped) this.start();
    return this.elapsed() < this.trustedUntil;
  }

  /** Closes the listening connection; from now on nothing is cached. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.heartbeats);
    clearTimeout(this.reconnect);
    const listener = this.listener;
    this.forget();
    await listener?.end().catch(() => undefined);
  }

  private start(): void {
    // Housekeeping alone must never keep the process alive.
    this.heartbeats = setInterval(() => this.heartbeat(), HEARTBEAT_EVERY_MS).unref();
    this.connect();
  }

  private connect(): void {
    if (this.stopped) return;
    const listener = new pg.Client({
      connectionString: this.connectionString,
      application_name: LISTENER_APPLICATION_NAME,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    this.listener = listener;
    listener.on('notification', (notice) => this.heard(listener, notice.payload ?? ''));
    // Without a listener an 'error' would crash the process; a lost connection is made anew instead.
    listener.on('error', () => this.lost(listener));
    listener.on('end', () => this.lost(listener));
    this.awaitedSince = this.elapsed();
    listener.connect()
      .then(() => listener.query(`listen ${CHANGES_CHANNEL}`))
      .then(() => this.prove(listener), () => this.lost(listener));
  }

  private heartbeat(): void {
    const listener = this.listener;
    if (listener === undefined) return; // a new one is on its way
    if (this.awaitedSince !== undefined) {
      if (this.elapsed() - this.awaitedSince > PROOF_GIVES_UP_MS) this.lost(listener);
      return;
    }
    this.prove(listener);
  }

  /**
   * Notices of one database reach a listener in the order their transactions
   * committed, so hearing a notice of our own, sent now, proves that every
   * notice of a commit before it has been heard, on a connection that is one
   * session. Behind a pooler in transaction mode, which lends server
   * connections per transaction, the proof mostly fails, but notices can be
   * lost between proofs: this connection needs a session of its own (README).
   */
  private prove(listener: pg.Client): void {
    const proof = `${this.proofPrefix}${++this.proofsSent}`;
    this.awaitedSince = this.elapsed();
    this.awaitedProof = proof;
    listener.query('select pg_notify($1, $2)', [CHANGES_CHANNEL, proof]).catch(() => this.lost(listener));
  }

  private heard(listener: pg.Client, payload: string): void {
    if (listener !== this.listener) return;
    if (payload === APPLICATIONS_CHANGED) {
      this.applicationsCounter++;
      return;
    }
    if (!payload.startsWith(PROOF_PREFIX)) {
      this.counter++;
      return;
    }
    if (payload !== this.awaitedProof) return; // another instance's proof, or a late one of ours
    const sentAt = this.awaitedSince!;
    this.awaitedSince = undefined;
    this.awaitedProof = undefined;
    // After a gap in trust (or on a new connection) anything cached before may be out of date.
    if (this.elapsed() >= this.trustedUntil) this.outdateEverything();
    const first = this.trustedUntil === -Infinity;
    this.trustedUntil = sentAt + NOTICES_TRUSTED_FOR_MS;
    if (first) this.onListening(true);
  }

  private lost(listener: pg.Client): void {
    if (listener !== this.listener) return;
    const wasListening = this.trustedUntil !== -Infinity;
    this.forget();
    if (wasListening) this.onListening(false);
    listener.end().catch(() => undefined);
    if (!this.stopped) this.reconnect = setTimeout(() => this.connect(), RECONNECT_AFTER_MS).unref();
  }

  private forget(): void {
    this.listener = undefined;
    this.awaitedSince = undefined;
    this.awaitedProof = undefined;
    this.trustedUntil = -Infinity;
    this.outdateEverything();
  }

  private outdateEverything(): void {
    this.counter++;
    this.applicationsCounter++;
  }
}
