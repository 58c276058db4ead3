import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * One CalDAV/CardDAV client as a person would set it up: Debian's vdirsyncer syncing the account's
 * calendars and address books into local directories (one per collection, one file per item).
 */
export class VdirsyncerClient {
  readonly dir: string;
  private readonly config: string;

  /** `parent`: where its directory goes (removed with it); the system's temporary one by default. */
  constructor(
    account: { url: string; username: string; password: string; caCertificate: string },
    parent = tmpdir(),
  ) {
    this.dir = mkdtempSync(path.join(parent, 'vdirsyncer-'));
    this.config = path.join(this.dir, 'config');
    // Made here, so that vdirsyncer has no question to ask about them.
    for (const kind of ['calendars', 'contacts', 'status']) mkdirSync(path.join(this.dir, kind));
    const remote = (type: string) =>
      [
        `type = "${type}"`,
        `url = "${account.url}"`,
        `username = "${account.username}"`,
        `password = "${account.password}"`,
        `verify = "${account.caCertificate}"`,
      ].join('\n');
    const local = (dir: string, ext: string) =>
      [`type = "filesystem"`, `path = "${path.join(this.dir, dir)}/"`, `fileext = "${ext}"`].join('\n');
    writeFileSync(
      this.config,
      [
        `[general]\nstatus_path = "${path.join(this.dir, 'status')}/"`,
        '[pair calendars]\na = "calendars_local"\nb = "calendars_remote"\ncollections = ["from b"]',
        `[storage calendars_local]\n${local('calendars', '.ics')}`,
        `[storage calendars_remote]\n${remote('caldav')}`,
        '[pair contacts]\na = "contacts_local"\nb = "contacts_remote"\ncollections = ["from b"]',
        `[storage contacts_local]\n${local('contacts', '.vcf')}`,
        `[storage contacts_remote]\n${remote('carddav')}`,
        '',
      ].join('\n\n'),
    );
  }

  /**
   * `vdirsyncer <args>`, answering yes to its questions, and not waited for synchronously: Atrium, which Caddy asks about each of its
   * requests, runs in the test's own process.
   */
  run(...args: string[]): Promise<{ ok: boolean; output: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn('/usr/bin/vdirsyncer', ['--config', this.config, ...args], {
        stdio: ['pipe', 'pipe', 'pipe'],
        timeout: 60_000,
      });
      // Yes to its questions (create the local copy of each collection it discovers).
      child.stdin.end('y\n'.repeat(20));
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('error', reject);
      child.once('close', (code) => resolve({ ok: code === 0, output }));
    });
  }

  /** The collections vdirsyncer keeps locally for `kind`, by name. */
  collections(kind: 'calendars' | 'contacts'): string[] {
    return readdirSync(path.join(this.dir, kind));
  }

  /** Writes an item into a local collection, as a client's "new event" or "new contact" would. */
  write(kind: 'calendars' | 'contacts', collection: string, name: string, text: string): void {
    const dir = path.join(this.dir, kind, collection);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }

  /** Every item's text in a local collection. */
  items(kind: 'calendars' | 'contacts', collection: string): string[] {
    const dir = path.join(this.dir, kind, collection);
    return readdirSync(dir).map((file) => readFileSync(path.join(dir, file), 'utf8'));
  }
}
