// How a process on PostgreSQL learns that what it caches may be out of date: its own
// changes, as its stores report them, and other instances', whose transactions send a
// notice naming what they changed to a connection of this process that LISTENs. Another
// instance's revocation is seen within milliseconds of its commit: RFC 7009 §2.1 allows
// such a propagation delay and asks that it be kept small.
import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { type CachedKind, CHANGES_CHANNEL, type Changes, KindVersions } from '../cache/changes.ts';
import type { Database } from '../schema.ts';

/** How often the listening connection is asked to prove that it still hears every notice. */
const HEARTBEAT_EVERY_MS = 500;
/**
 * Notices are trusted for this long after the last proof was asked for: a connection
 * lost without a word (a network partition) leaves nothing cached for longer.
 */
export const NOTICES_TRUSTED_FOR_MS = 2000;
/** A proof this late means the connection is gone: it is dropped and made anew. */
const PROOF_GIVES_UP_MS = 5000;
const RECONNECT_AFTER_MS = 1000;
const CONNECT_TIMEOUT_MS = 2000;
/** How the listening connection shows in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = 'folio-changes';
/** Proofs are notices too; any other payload names the kinds a commit changed. */
const PROOF_PREFIX = 'proof:';

export class PostgresChanges implements Changes {
  private readonly versions = new KindVersions();
  private trustedUntil = -Infinity;
  private listener: pg.Client | undefined;
  /** When the unanswered connect or proof was sent. */
  private awaitedSince: number | undefined;
  private awaitedProof: string | undefined;
  private proofsSent = 0;
  private readonly proofPrefix = `${PROOF_PREFIX}${randomBytes(8).toString('hex')}:`;
  private heartbeats: NodeJS.Timeout | undefined;
  private reconnect: NodeJS.Timeout | undefined;
  private stopped = false;

  /** `onListening` hears when a connection is first proven and when one is lost; `elapsed` is a monotonic clock. */
  constructor(
    private readonly connectionString: string,
    private readonly onListening: (listening: boolean) => void = () => {},
    private readonly elapsed: () => number = () => performance.now(),
  ) {}

  version(kind: CachedKind): number {
    // Unsure what was missed: a new number every time, so nothing read now is kept.
    if (!this.trusted()) this.versions.move([kind]);
    return this.versions.get(kind);
  }

  async announce(trx: Kysely<Database>, kinds: readonly CachedKind[]): Promise<void> {
    await sql`select pg_notify(${CHANGES_CHANNEL}, ${kinds.join(' ')})`.execute(trx);
  }

  forget(kinds: readonly CachedKind[]): void {
    this.versions.move(kinds);
  }

  trusted(): boolean {
    // Listening starts with the first cached read or /metrics scrape: the command line never needs it.
    if (this.heartbeats === undefined && !this.stopped) this.start();
    return this.elapsed() < this.trustedUntil;
  }

  /** Closes the listening connection; from now on nothing is cached. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.heartbeats);
    clearTimeout(this.reconnect);
    const listener = this.listener;
    this.dropListener();
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
    if (this.awaitedSince === undefined) this.prove(listener);
    else if (this.elapsed() - this.awaitedSince > PROOF_GIVES_UP_MS) this.lost(listener);
  }

  /**
   * Notices reach a listener in the order their transactions committed, so hearing
   * one of our own, sent now, proves that every notice of an earlier commit has been
   * heard. Behind a pooler in transaction mode notices can be lost between proofs:
   * this connection needs a session of its own (README).
   */
  private prove(listener: pg.Client): void {
    const proof = `${this.proofPrefix}${++this.proofsSent}`;
    this.awaitedSince = this.elapsed();
    this.awaitedProof = proof;
    listener.query('select pg_notify($1, $2)', [CHANGES_CHANNEL, proof]).catch(() => this.lost(listener));
  }

  private heard(listener: pg.Client, payload: string): void {
    if (listener !== this.listener) return;
    if (!payload.startsWith(PROOF_PREFIX)) {
      this.versions.move(KindVersions.fromPayload(payload));
      return;
    }
    if (payload !== this.awaitedProof) return; // another instance's proof, or a late one of ours
    const sentAt = this.awaitedSince!;
    this.awaitedSince = undefined;
    this.awaitedProof = undefined;
    // After a gap in trust (or on a new connection) anything cached before may be out of date.
    if (this.elapsed() >= this.trustedUntil) this.versions.move();
    const first = this.trustedUntil === -Infinity;
    this.trustedUntil = sentAt + NOTICES_TRUSTED_FOR_MS;
    if (first) this.onListening(true);
  }

  private lost(listener: pg.Client): void {
    if (listener !== this.listener) return;
    const wasListening = this.trustedUntil !== -Infinity;
    this.dropListener();
    if (wasListening) this.onListening(false);
    listener.end().catch(() => undefined);
    if (!this.stopped) this.reconnect = setTimeout(() => this.connect(), RECONNECT_AFTER_MS).unref();
  }

  private dropListener(): void {
    this.listener = undefined;
    this.awaitedSince = undefined;
    this.awaitedProof = undefined;
    this.trustedUntil = -Infinity;
    this.versions.move();
  }
}
