// A local SMTP server for the e-mail tests: it checks AUTH against one user
// and password, parses every mail it accepts with mailparser, and keeps them
// for assertions. Plain SMTP without STARTTLS, so a client that insists on TLS
// fails the way it would against a misconfigured server.
import type { AddressInfo } from "node:net";
import { simpleParser, type AddressObject, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  /** The envelope's recipients (RCPT TO). */
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  /** Every header line as received (raw), to check nothing was injected. */
  headerLines: ReadonlyArray<{ key: string; line: string }>;
  parsed: ParsedMail;
}

export interface SmtpServerHandle {
  host: string;
  port: number;
  mails: ReceivedMail[];
  /** Logins refused so far. */
  refusedLogins: number;
  close(): Promise<void>;
}

export async function startSmtpServer(opts: { user: string; password: string }): Promise<SmtpServerHandle> {
  const handle: SmtpServerHandle = { host: "127.0.0.1", port: 0, mails: [], refusedLogins: 0, close: async () => {} };
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ["STARTTLS"],
    authOptional: false,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === opts.user && auth.password === opts.password) return callback(null, { user: auth.username });
      handle.refusedLogins++;
      const err = new Error("Invalid username or password") as Error & { responseCode: number };
      err.responseCode = 535;
      callback(err);
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          handle.mails.push({
            to: session.envelope.rcptTo.map((r) => r.address),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            subject: parsed.subject ?? "",
            text: parsed.text ?? "",
            html: typeof parsed.html === "string" ? parsed.html : "",
            messageId: parsed.messageId ?? "",
            headerLines: parsed.headerLines,
            parsed,
          });
          callback();
        })
        .catch((err: Error) => callback(err));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  handle.port = (server.server.address() as AddressInfo).port;
  handle.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return handle;
}

/** The addresses a parsed header names. */
export function addressesOf(field: AddressObject | AddressObject[] | undefined): string[] {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  return list.flatMap((a) => a.value.map((v) => v.address ?? ""));
}
