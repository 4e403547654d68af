// Names people read when deciding whom to trust: a person's name ("Made by …" on
// a consent page) and an application's.

/**
 * Control characters, and the bidirectional overrides, isolates and marks that
 * reorder how the text around them reads (Unicode TR9; CVE-2021-42574's "Trojan
 * Source"): a name must read as it was typed.
 */
const UNSAFE = /[\p{Cc}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

export function hasUnsafeCharacters(name: string): boolean {
  return UNSAFE.test(name);
}
