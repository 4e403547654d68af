// Token requests beside a GET load, as a server that issues tokens and serves the
// API at once sees them: POSTs at a steady rate, sent from the load worker's own
// process (bench/load-worker.mjs) so that they take no CPU from the server's core.
// It writes prepared request bytes on keep-alive sockets and reads only each
// answer's status line and Content-Length, to cost the load generator little.
// autocannon's own `overallRate` would not do: it sends each second's requests in
// one burst, which the server's group commit would then write as one.
import { connect } from 'node:net';

const MAX_SOCKETS = 32;
const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * Starts POSTing `body` to `url` + `path` `perSecond` times a second, evenly spaced
 * (a late timer catches up), each on an idle socket or a new one; while all of
 * MAX_SOCKETS await answers, the requests due wait. stop() waits for the answers
 * still due and says how many were 2xx and what the others were.
 */
export function startIssuing({ url, path, headers, body, perSecond }) {
  const { hostname, port } = new URL(url);
  const request = Buffer.from(
    `POST ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\n` +
    Object.entries({ ...headers, 'content-length': Buffer.byteLength(body) }).map(([name, value]) => `${name}: ${value}\r\n`).join('') +
    `\r\n${body}`,
  );
  const idle = [];
  const sockets = new Set();
  let ok = 0;
  const refused = [];
  let sent = 0;
  let answered = 0;
  let onSettled;

  /** `status` is the answer's HTTP status, or why there was none. */
  const answer = (status) => {
    answered++;
    if (typeof status === 'number' && status >= 200 && status < 300) ok++;
    else refused.push(String(status));
    if (answered === sent) onSettled?.();
  };

  const open = () => {
    const connection = { socket: connect(Number(port), hostname), awaiting: false };
    const { socket } = connection;
    socket.setNoDelay(true);
    sockets.add(socket);
    let buffered = Buffer.alloc(0);
    const settle = (status) => {
      if (!connection.awaiting) return;
      connection.awaiting = false;
      answer(status);
    };
    socket.on('data', (chunk) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      const headEnd = buffered.indexOf(HEAD_END);
      if (headEnd < 0) return;
      const head = buffered.subarray(0, headEnd).toString('latin1');
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      if (length === null) return socket.destroy(new Error('an answer without Content-Length'));
      const end = headEnd + HEAD_END.length + Number(length[1]);
      if (buffered.length < end) return;
      if (buffered.length > end) return socket.destroy(new Error('more bytes than one answer'));
      buffered = Buffer.alloc(0);
      settle(Number(head.slice(9, 12)));
      if (/\r\nconnection: *close/i.test(head)) socket.destroy();
      else idle.push(connection);
    });
    socket.on('error', (error) => settle(error.message));
    socket.on('close', () => {
      sockets.delete(socket);
      const at = idle.indexOf(connection);
      if (at >= 0) idle.splice(at, 1);
      settle('closed before answering');
    });
    return connection;
  };

  const sendOne = () => {
    sent++;
    const connection = idle.pop() ?? open();
    connection.awaiting = true;
    connection.socket.write(request);
  };

  const started = performance.now();
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) / 1000) * perSecond);
    // With every socket awaiting an answer, the rest wait for the next tick.
    while (sent < due && (idle.length > 0 || sockets.size < MAX_SOCKETS)) sendOne();
  }, 1000 / perSecond);

  return {
    async stop() {
      clearInterval(timer);
      if (answered < sent) await new Promise((resolve) => { onSettled = resolve; });
      for (const socket of sockets) socket.destroy();
      return { issued: ok, refused };
    },
  };
}
