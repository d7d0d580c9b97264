import { eventually as eventuallyWithin } from '../../../test/helpers/sandbox-stack';

/** What grow's suites share: reading the raw messages the test SMTP server received, and waiting on timers. */

/** The raw message's subject line. */
export const subjectOf = (raw: string) => /^Subject:\s*(.+)$/im.exec(raw)?.[1]?.trim();

/** The readable text of a raw message: quoted-printable soft breaks joined and =XX decoded. */
export const decoded = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** The same, with folded header lines joined too (a long List-Unsubscribe header). */
export const unfolded = (raw: string) => decoded(raw).replace(/\r?\n[ \t]+/g, ' ');

/** Polls until `check` holds (a campaign or automation timer's effect), failing after `ms`. */
export const eventually = <T>(read: () => T | Promise<T>, check: (value: T) => boolean, ms = 90_000) => eventuallyWithin(async () => read(), check, ms, 300);
