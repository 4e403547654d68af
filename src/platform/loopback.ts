import { isIP } from 'node:net';

/**
 * True for names that can only reach this machine: localhost, 127.0.0.0/8 and ::1.
 * Accepts a URL hostname, so IPv6 may arrive bracketed ("[::1]").
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}
