/** The parts of a mail the gate reads: the subject and the body text. */
export interface MailText {
  readonly subject: string;
  readonly body: string;
}

const SUBJECT = /^subject:[ \t]*(.*(?:\n[ \t]+.*)*)/im;
// Attachments and encoded parts are long unbroken runs; as words they are only noise.
const ENCODED_LINE = /^[A-Za-z0-9+/=]{40,}$/gm;

/**
 * Subject and body of a raw RFC 822 mail. Headers other than the subject are left out on
 * purpose: the corpus's routing headers (spam traps, list servers) would give the answer away.
 */
export function mailText(raw: string, maxBodyChars: number): MailText {
  const text = raw.replace(/\r\n?/g, '\n');
  const split = text.indexOf('\n\n');
  const headers = split < 0 ? text : text.slice(0, split);
  const rawBody = split < 0 ? '' : text.slice(split + 2);
  const subject = (SUBJECT.exec(headers)?.[1] ?? '').replace(/\n[ \t]+/g, ' ');
  const body = rawBody
    .slice(0, maxBodyChars * 2)
    .replace(ENCODED_LINE, ' ')
    // Quoted-printable: soft line breaks and =XX escapes, so words are whole again.
    .replace(/=\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .slice(0, maxBodyChars);
  return { subject, body };
}
