// Fastify gives every request a child logger (request.log) bound to its reqId.
// pino's child() rebuilds each level method of the new logger: 3k instructions of
// a bearer GET's 159k (bench/instructions.ts, docs/performance.md), for a logger
// that most requests never use, since the access-log line is written apart
// (access-log.ts). This one makes the real child on its first use.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type Level = (typeof LEVELS)[number];

class DeferredChildLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** The child pino would have made for the request, made now. */
  made(): FastifyBaseLogger {
    return this.#child ??= this.parent.child(this.bindings, this.options);
  }

  get level(): string {
    return this.#child?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.made().level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.made().child(bindings, options);
  }
}

// Each level method is pino's, called on the child made for it.
interface DeferredChildLogger extends Pick<FastifyBaseLogger, Level> {}
for (const level of LEVELS) {
  DeferredChildLogger.prototype[level] = function (this: DeferredChildLogger, ...args: unknown[]) {
    const child = this.made();
    (child[level] as (...logged: unknown[]) => void).apply(child, args);
  };
}

/** Fastify's `childLoggerFactory`: the request's logger, made real when it first logs. */
export function deferredChildLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new DeferredChildLogger(parent, bindings, options);
}
