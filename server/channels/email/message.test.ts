import { describe, expect, it } from "vitest";
import { buildRequestMail, escapeHtml, headerSafe, requestMailSubject } from "./message";
import { wantsMail } from "./preference";
import { describeSmtpError } from "./transport";
import { EmailSettingsInput } from "./settings";

const HOSTILE = `<script>alert("x")</script><img src=x onerror=alert(1)>`;

function mail(overrides: Partial<Parameters<typeof buildRequestMail>[0]["request"]> = {}, level = 1) {
  return buildRequestMail({
    request: {
      id: "req-1",
      kind: "approve",
      title: "Run ./deploy.sh production",
      detail: "The agent wants to deploy.",
      payload: { tool: "shell" },
      expiresAt: new Date("2026-12-01T10:30:00Z"),
      run: { goal: "Ship the release", agentName: "demo-deploy", status: "waiting_human" },
      ...overrides,
    },
    level,
    recipientName: "Ada",
    link: "https://rein.example.com/resume?t=abc.def",
    linkExpiresAt: new Date("2026-12-02T10:30:00Z"),
    profileUrl: "https://rein.example.com/profile",
  });
}

describe("the mail about a request", () => {
  it("says what is asked, by whom, until when, with the link and how to stop the mails, in both parts", () => {
    const m = mail();
    expect(m.subject).toBe("[Rein] Approve: Run ./deploy.sh production");
    for (const part of [m.text, m.html]) {
      expect(part).toContain("approve or reject");
      expect(part).toContain("demo-deploy");
      expect(part).toContain("Ship the release");
      expect(part).toContain("2026-12-01 10:30 UTC");
      expect(part).toContain("https://rein.example.com/resume?t=abc.def");
      expect(part).toContain("https://rein.example.com/profile");
      expect(part).toContain("works once");
    }
  });

  it("lists the options of a choose request and names the kind in the subject", () => {
    const m = mail({
      kind: "choose",
      title: "Which length?",
      payload: {
        options: [
          { id: "short", label: "Short", detail: "one page" },
          { id: "long", label: "Long" },
        ],
      },
    });
    expect(m.subject).toBe("[Rein] Choose: Which length?");
    expect(m.text).toContain("  - Short: one page");
    expect(m.text).toContain("  - Long");
    expect(m.html).toContain("<strong>Short</strong>");
  });

  it("says why an escalated or on-call mail came", () => {
    expect(mail({}, 2).subject).toBe("[Rein] Approve (escalated): Run ./deploy.sh production");
    expect(mail({}, 2).text).toContain("level-2 approver");
    expect(mail({}, 3).subject).toBe("[Rein] Approve (on call): Run ./deploy.sh production");
    expect(mail({}, 3).text).toContain("on-call admin");
    expect(mail({ kind: "veto" }).text).toContain("It goes ahead at 2026-12-01 10:30 UTC");
  });

  it("escapes hostile title, detail, goal, tool and options in the HTML part", () => {
    const m = mail({
      kind: "choose",
      title: HOSTILE,
      detail: `${HOSTILE}\n<a href="javascript:alert(1)">click</a>`,
      payload: { tool: HOSTILE, options: [{ id: "a", label: HOSTILE, detail: HOSTILE }] },
      run: { goal: HOSTILE, agentName: `<b onmouseover=1>agent</b>`, status: "waiting_human" },
    });
    expect(m.html).not.toMatch(/<script|<img|<a href="javascript|<b onmouseover/i);
    expect(m.html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    // The only tags are Rein's own.
    const tags = [...m.html.matchAll(/<([a-z0-9!]+)/gi)].map((t) => t[1].toLowerCase());
    expect(new Set(tags)).toEqual(
      new Set(["!doctype", "html", "body", "p", "h2", "pre", "code", "ul", "li", "strong", "a", "small", "hr"]),
    );
    expect([...m.html.matchAll(/<a href="([^"]*)"/g)].map((x) => x[1])).toEqual([
      "https://rein.example.com/resume?t=abc.def",
      "https://rein.example.com/profile",
    ]);
  });

  it("keeps line breaks and control characters out of the subject, and a long title short", () => {
    const m = mail({ title: "Deploy\r\nBcc: victim@example.com\r\n\r\n<b>body</b>\u0000\u2028X-Evil: 1" });
    expect(m.subject).not.toMatch(/[\r\n\u0000\u2028]/);
    expect(m.subject).toBe("[Rein] Approve: Deploy Bcc: victim@example.com <b>body</b> X-Evil: 1");
    expect(headerSafe("x".repeat(500))).toHaveLength(140);
    expect(requestMailSubject("provide", "a\nb", 1)).toBe("[Rein] Provide: a b");
    expect(escapeHtml(`&<>"'`)).toBe("&amp;&lt;&gt;&quot;&#39;");
  });
});

describe("who wants which mail", () => {
  it.each([
    ["decide", 1, true],
    ["decide", 2, true],
    ["decide", 3, true],
    ["escalated", 1, false],
    ["escalated", 2, true],
    ["escalated", 3, true],
    ["none", 1, false],
    ["none", 2, false],
    ["none", 3, false],
  ] as const)("%s at level %i: %s", (preference, level, expected) => {
    expect(wantsMail(preference, level)).toBe(expected);
  });
});

describe("SMTP failures in words", () => {
  const settings = { host: "smtp.example.com", port: 587, user: "rein", passwordSecret: "SMTP_PASSWORD", security: "starttls" as const };
  it.each([
    [
      "connection refused",
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:587"), { code: "ESOCKET" }),
      /connection refused.*Check the host and the port/,
    ],
    [
      "authentication",
      Object.assign(new Error("Invalid login: 535 Authentication failed"), { code: "EAUTH", responseCode: 535 }),
      /refused to log in \(authentication failed\).*SMTP_PASSWORD/,
    ],
    ["TLS", Object.assign(new Error("ssl3_get_record:wrong version number"), { code: "ESOCKET" }), /secure connection .* failed \(TLS/],
    ["no such host", Object.assign(new Error("getaddrinfo ENOTFOUND smtp.example.com"), { code: "EDNS" }), /could not be found/],
    ["time-out", Object.assign(new Error("Greeting never received"), { code: "ETIMEDOUT" }), /did not answer in time/],
  ])("%s", (_what, err, expected) => {
    expect(describeSmtpError(err, settings)).toMatch(expected);
  });

  it("never repeats the password, even when the server echoes it", () => {
    const said = describeSmtpError(new Error("550 unknown thing hunter2-secret"), settings, "hunter2-secret");
    expect(said).not.toContain("hunter2-secret");
    expect(said).toContain("Sending the mail failed");
  });
});

describe("the settings", () => {
  const good = {
    enabled: true,
    host: "smtp.example.com",
    port: 587,
    security: "starttls",
    user: "rein",
    passwordSecret: "SMTP_PASSWORD",
    from: "Rein <rein@example.com>",
  };
  it("takes a good setting and refuses bad fields by name", () => {
    expect(EmailSettingsInput.parse(good)).toEqual(good);
    expect(EmailSettingsInput.parse({ ...good, user: "", passwordSecret: " " })).toEqual({
      ...good,
      user: undefined,
      passwordSecret: undefined,
    });
    const paths = (input: unknown) => (EmailSettingsInput.safeParse(input).error?.issues ?? []).map((i) => i.path.join("."));
    expect(paths({ ...good, host: "http://smtp.example.com/x" })).toEqual(["host"]);
    expect(paths({ ...good, port: 70000 })).toEqual(["port"]);
    expect(paths({ ...good, security: "ssl" })).toEqual(["security"]);
    expect(paths({ ...good, from: "Rein <rein@example.com>\r\nBcc: x@y.z" })).toEqual(["from"]);
    expect(paths({ ...good, passwordSecret: "not a name" })).toEqual(["passwordSecret"]);
    expect(paths({ ...good, password: "hunter2" })).toEqual([""]);
  });
});
