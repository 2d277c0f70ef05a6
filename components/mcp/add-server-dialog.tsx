"use client";
// Attach an MCP server (admins): a program run in the sandbox over stdio, or
// a Streamable HTTP address. Variables and headers take a Rein secret by name
// (its value is never shown) or plain text; the server's problems appear
// beside the field they are about.
import { useId, useState, type FormEvent } from "react";
import { Dialog, DialogFooter, ErrorBlock, FieldError } from "@/components/ui";
import { issuesOf } from "@/lib/field-errors";
import { errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";
import type { McpServerView } from "./format";

/** The names a variable or header may reference (upper case, as the server checks). */
const SECRET_REF = /^[A-Z][A-Z0-9_]{0,63}$/;

type Field = "name" | "transport" | "command" | "args" | "env" | "url" | "headers";
type Row = { key: string; kind: "secret" | "value"; secret: string; value: string };
const emptyRow = (): Row => ({ key: "", kind: "secret", secret: "", value: "" });

/** "stdio.env.<NAME>" → env, "http.url" → url, "secret" (a missing one) → where secrets are named. */
function fieldOf(path: string, transport: "stdio" | "http"): Field | null {
  const [head, second] = path.split(".");
  if (head === "name" || head === "transport") return head;
  if (head === "stdio") return second === "command" ? "command" : second === "args" ? "args" : second === "env" ? "env" : null;
  if (head === "http") return second === "url" ? "url" : second === "headers" ? "headers" : null;
  if (head === "secret") return transport === "stdio" ? "env" : "headers";
  return null;
}

function errorsOf(err: unknown, transport: "stdio" | "http"): { fields: Partial<Record<Field, string>>; other: string | null } {
  const issues = issuesOf(err);
  if (!issues?.length) return { fields: {}, other: errorMessage(err) };
  const fields: Partial<Record<Field, string>> = {};
  const other: string[] = [];
  for (const i of issues) {
    const f = fieldOf(i.path, transport);
    const detail = i.path.split(".").length > 2 ? `${i.path.split(".").slice(2).join(".")}: ${i.message}` : i.message;
    if (f) fields[f] = fields[f] ? `${fields[f]}; ${detail}` : detail;
    else other.push(`${i.path}: ${i.message}`);
  }
  return { fields, other: other.length ? other.join("; ") : null };
}

const valuesOf = (rows: Row[]) =>
  Object.fromEntries(
    rows.filter((r) => r.key.trim()).map((r) => [r.key.trim(), r.kind === "secret" ? { secret: r.secret } : { value: r.value }]),
  );

function ValueRows({
  rows,
  setRows,
  secrets,
  what,
  id,
}: {
  rows: Row[];
  setRows(rows: Row[]): void;
  secrets: string[];
  what: "Variable" | "Header";
  id: string;
}) {
  const set = (i: number, patch: Partial<Row>) => setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <div className="stack" style={{ gap: 8 }}>
      {rows.map((r, i) => (
        <div key={i} className="row" style={{ gap: 8, alignItems: "center" }} data-testid={`mcp-${what.toLowerCase()}-row`}>
          <input
            className="input mono"
            aria-label={`${what} ${i + 1} name`}
            placeholder={what === "Variable" ? "API_TOKEN" : "Authorization"}
            value={r.key}
            onChange={(e) => set(i, { key: e.target.value })}
            style={{ flex: 1 }}
            spellCheck={false}
            autoComplete="off"
          />
          <select
            className="select"
            aria-label={`${what} ${i + 1} source`}
            value={r.kind}
            onChange={(e) => set(i, { kind: e.target.value as Row["kind"] })}
            style={{ width: 120 }}
          >
            <option value="secret">a secret</option>
            <option value="value">plain text</option>
          </select>
          {r.kind === "secret" ? (
            <select
              className="select mono"
              aria-label={`${what} ${i + 1} secret`}
              value={r.secret}
              onChange={(e) => set(i, { secret: e.target.value })}
              style={{ flex: 1 }}
            >
              <option value="">Choose a secret…</option>
              {secrets.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          ) : (
            <input
              className="input mono"
              aria-label={`${what} ${i + 1} value`}
              value={r.value}
              onChange={(e) => set(i, { value: e.target.value })}
              style={{ flex: 1 }}
              spellCheck={false}
              autoComplete="off"
            />
          )}
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            aria-label={`Remove ${what.toLowerCase()} ${i + 1}`}
            onClick={() => setRows(rows.filter((_, j) => j !== i))}
          >
            ✕
          </button>
        </div>
      ))}
      <div>
        <button type="button" className="btn btn-sm" onClick={() => setRows([...rows, emptyRow()])} id={id}>
          + Add a {what.toLowerCase()}
        </button>
      </div>
    </div>
  );
}

export function AddServerDialog({ open, onClose, onAdded }: { open: boolean; onClose(): void; onAdded(server: McpServerView): void }) {
  return (
    <Dialog open={open} onClose={onClose} labelledBy="mcp-add-title" testId="mcp-add-dialog">
      <AddServerForm onClose={onClose} onAdded={onAdded} />
    </Dialog>
  );
}

function AddServerForm({ onClose, onAdded }: { onClose(): void; onAdded(server: McpServerView): void }) {
  const id = useId();
  const utils = trpc.useUtils();
  const secretList = trpc.secrets.list.useQuery(undefined, { staleTime: 30_000 });
  const secrets = (secretList.data ?? []).map((s) => s.name).filter((n) => SECRET_REF.test(n));
  const [name, setName] = useState("");
  const [transport, setTransport] = useState<"stdio" | "http">("stdio");
  const [command, setCommand] = useState("node");
  const [args, setArgs] = useState("");
  const [env, setEnv] = useState<Row[]>([]);
  const [network, setNetwork] = useState(false);
  const [url, setUrl] = useState("");
  const [headers, setHeaders] = useState<Row[]>([]);
  const [oauth, setOauth] = useState(false);
  const [scope, setScope] = useState("");
  const [authServer, setAuthServer] = useState("");
  const [errors, setErrors] = useState<{ fields: Partial<Record<Field, string>>; other: string | null }>({ fields: {}, other: null });
  const add = trpc.mcp.add.useMutation({
    onSuccess: (server) => {
      void utils.mcp.list.invalidate();
      onAdded(server);
    },
    onError: (err) => setErrors(errorsOf(err, transport)),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    if (add.isPending) return;
    const fields: Partial<Record<Field, string>> = {};
    if (!name.trim()) fields.name = "A name is required";
    if (transport === "stdio" && !command.trim()) fields.command = "A command is required";
    if (transport === "http" && !url.trim()) fields.url = "A URL is required";
    const rows = transport === "stdio" ? env : headers;
    if (rows.some((r) => r.key.trim() && r.kind === "secret" && !r.secret))
      fields[transport === "stdio" ? "env" : "headers"] = "Choose a secret for each row that takes one";
    setErrors({ fields, other: null });
    if (Object.keys(fields).length) return;
    add.mutate(
      transport === "stdio"
        ? {
            name: name.trim(),
            transport,
            stdio: {
              command: command.trim(),
              args: args
                .split("\n")
                .map((a) => a.trim())
                .filter(Boolean),
              env: valuesOf(env),
              network,
            },
          }
        : {
            name: name.trim(),
            transport,
            http: {
              url: url.trim(),
              headers: valuesOf(headers),
              ...(oauth
                ? {
                    oauth: {
                      ...(scope.trim() ? { scope: scope.trim() } : {}),
                      ...(authServer.trim() ? { authorizationServer: authServer.trim() } : {}),
                    },
                  }
                : {}),
            },
          },
    );
  }

  const help = (f: Field, hint: string) =>
    errors.fields[f] ? (
      <FieldError id={`${id}-${f}-help`} message={errors.fields[f]} testId={`mcp-${f}-error`} live />
    ) : (
      <span className="hint" id={`${id}-${f}-help`}>
        {hint}
      </span>
    );
  const described = (f: Field) => ({
    id: `${id}-${f}`,
    "aria-invalid": errors.fields[f] ? true : undefined,
    "aria-describedby": `${id}-${f}-help`,
  });

  return (
    <form className="dialog-form" onSubmit={submit} noValidate data-testid="mcp-add-form">
      <div className="dialog-header">
        <div>
          <h2 id="mcp-add-title">Add an MCP server</h2>
          <p>Rein starts it, reads its tools and keeps them all off until you turn some on.</p>
        </div>
      </div>
      <div className="dialog-body">
        <div className="field">
          <label htmlFor={`${id}-name`}>Name</label>
          <input
            className="input mono"
            placeholder="e.g. tickets"
            spellCheck={false}
            autoComplete="off"
            value={name}
            onChange={(e) => setName(e.target.value)}
            data-autofocus
            {...described("name")}
          />
          {help("name", "Lower-case letters, digits and -; its tools reach agents as <name>__<tool>.")}
        </div>
        <fieldset className="field" style={{ border: 0, padding: 0, margin: 0 }}>
          <legend className="label">Transport</legend>
          <div className="row" style={{ gap: 16 }}>
            <label className="row" style={{ gap: 6 }}>
              <input type="radio" name={`${id}-transport`} checked={transport === "stdio"} onChange={() => setTransport("stdio")} />
              stdio (a program in the sandbox)
            </label>
            <label className="row" style={{ gap: 6 }}>
              <input type="radio" name={`${id}-transport`} checked={transport === "http"} onChange={() => setTransport("http")} />
              Streamable HTTP
            </label>
          </div>
          <FieldError message={errors.fields.transport} live />
        </fieldset>
        {transport === "stdio" ? (
          <>
            <div className="field">
              <label htmlFor={`${id}-command`}>Command</label>
              <input
                className="input mono"
                spellCheck={false}
                autoComplete="off"
                value={command}
                onChange={(e) => setCommand(e.target.value)}
                {...described("command")}
              />
              {help(
                "command",
                "node (the sandbox's Node) or an absolute path under /usr. Rein's packages are at /opt/rein/node_modules; the server's own folder is /workspace.",
              )}
            </div>
            <div className="field">
              <label htmlFor={`${id}-args`}>Arguments</label>
              <textarea
                className="textarea mono"
                rows={3}
                spellCheck={false}
                placeholder={"/opt/rein/node_modules/some-server/dist/index.js\nstdio"}
                value={args}
                onChange={(e) => setArgs(e.target.value)}
                {...described("args")}
              />
              {help("args", "One per line.")}
            </div>
            <div className="field">
              <span className="label" id={`${id}-env-label`}>
                Environment
              </span>
              <ValueRows rows={env} setRows={setEnv} secrets={secrets} what="Variable" id={`${id}-env`} />
              {help(
                "env",
                "The server starts from a clean environment with only these. A secret's value is read when the server starts and never shown.",
              )}
            </div>
            <label className="row" style={{ gap: 8 }}>
              <input type="checkbox" className="checkbox" role="switch" checked={network} onChange={(e) => setNetwork(e.target.checked)} />
              Network — gives the server the machine&apos;s network (off: it has none)
            </label>
          </>
        ) : (
          <>
            <div className="field">
              <label htmlFor={`${id}-url`}>URL</label>
              <input
                className="input mono"
                type="url"
                placeholder="https://mcp.example.com/mcp"
                spellCheck={false}
                autoComplete="off"
                value={url}
                onChange={(e) => setUrl(e.target.value)}
                {...described("url")}
              />
              {help("url", "The server's Streamable HTTP endpoint.")}
            </div>
            <div className="field">
              <span className="label">Headers</span>
              <ValueRows rows={headers} setRows={setHeaders} secrets={secrets} what="Header" id={`${id}-headers`} />
              {help("headers", "Sent with every request, e.g. Authorization from a secret.")}
            </div>
            <label className="row small" style={{ gap: 8 }}>
              <input
                type="checkbox"
                className="checkbox"
                role="switch"
                checked={oauth}
                onChange={(e) => setOauth(e.target.checked)}
                data-testid="mcp-oauth"
              />
              OAuth — an admin authorizes Rein at the server&apos;s own login; Rein keeps and refreshes the tokens
            </label>
            {oauth && (
              <div className="field">
                <label htmlFor={`${id}-scope`}>Scope (optional)</label>
                <input
                  id={`${id}-scope`}
                  className="input mono"
                  placeholder="what the server lists"
                  spellCheck={false}
                  autoComplete="off"
                  value={scope}
                  onChange={(e) => setScope(e.target.value)}
                />
              </div>
            )}
            {oauth && (
              <div className="field">
                <label htmlFor={`${id}-auth-server`}>Authorization server (optional)</label>
                <input
                  id={`${id}-auth-server`}
                  className="input mono"
                  type="url"
                  placeholder="https://login.example.com"
                  spellCheck={false}
                  autoComplete="off"
                  value={authServer}
                  onChange={(e) => setAuthServer(e.target.value)}
                />
                <p className="hint">
                  When you know it: Rein then talks to no other, and may reach it on a private network. After adding the server, press
                  Authorize on its page.
                </p>
              </div>
            )}
          </>
        )}
        {secretList.data && secrets.length === 0 && (
          <p className="hint">No secret has a name a server can use (upper-case letters, digits and _); add one in Settings › Secrets.</p>
        )}
        <ErrorBlock message={errors.other} testId="mcp-add-error" />
      </div>
      <DialogFooter onClose={onClose} busy={add.isPending} label="Add server" busyLabel="Starting it…" testId="mcp-add-submit" />
    </form>
  );
}
