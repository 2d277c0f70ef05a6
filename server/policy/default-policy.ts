// The policy a new installation starts with (stored as version 1).
const FIRST_DEFAULT = `# Rein tool policy (PolicyGate, SPEC section 5).
#
# Every tool call an agent makes is decided here before it runs:
#   allow - it runs;  deny - it is refused;  ask - a human is asked first.
#
# The cascade. A rule's level is the first of these keys it names:
#   actor (an email or user id) -> team -> tool -> tier (or "environment")
# Actor rules are checked first, then team rules, then tool rules, then
# environment rules. Within a level the first matching rule, in the order
# written here, decides. When no rule at any level matches, the call is
# DENIED - so a new tool is refused until a rule allows it.
#
# A rule matches only when everything it names matches: a rule with actor,
# tool and args applies to that tool, with those arguments, for that person.
# Names and globs ("browser_*", "*") or lists of them are accepted.
#
# args: all must match. A matcher is a plain value (equals), or one of
#   { equals: x }  { pattern: <regex> }  { prefix: s }  { contains: s }
#   { oneOf: [a, b] }
# Argument names may be dotted (options.force); non-string values are
# matched against their JSON text. Patterns run in linear time (RE2 syntax:
# no backreferences or lookaround).
#
# Shell commands are read as what they run. The command line as written and
# each command in it are matched on their own: the commands of pipelines,
# lists (; && ||), subshells, { } groups, functions and $( ) substitutions,
# the body of sh -c / bash -c, a here-string fed to a shell, the script of
# "sh script.sh", and what env, xargs, find -exec, sudo, nohup, timeout,
# nice, exec and the like run. Each is offered as written, without the
# program's folder (./deploy.sh is deploy.sh) and with flags spelled out
# (rm -fr, rm -r -f and rm --recursive --force are all "rm -rf"; git -C .
# push is "git push"). The strictest answer of all parts decides. A command
# whose program is known only when it runs ($x, $(...), eval, source, a
# shell reading a file) is asked about.
#
# ask: { kind: approve | choose | provide | veto,
#        role: operator | approver | admin,  ttl: 30m }
# kind defaults to approve, role to approver; without ttl the human-request
# defaults apply. A veto nobody answers before its ttl counts as approved.
#
# Examples:
#   - actor: alice@example.com        # Alice may push without asking
#     tool: shell
#     args: { command: { pattern: '^git push' } }
#     decision: allow
#   - team: contractors               # contractors never deploy
#     tool: shell
#     args: { command: { contains: deploy } }
#     decision: deny
#   - tier: [T3, T4]                  # tools no rule above covers: ask an
#     decision: ask                   # admin on the big tiers (elsewhere the
#     ask: { role: admin }            # default deny applies)

rules:
  # Ask rules come before the general allow: within the tool level the first
  # matching rule decides.
  - name: deploys, pushes and forced deletes need approval
    tool: shell
    args:
      command: { pattern: '^(\\./)?deploy(\\.[a-z]+)?( |$)|^git push( |$)|^rm -rf( |$)' }
    decision: ask
    ask: { kind: approve, role: approver }

  - name: publishing can be vetoed
    tool: shell
    args:
      command: { pattern: '\\bpublish\\b' }
    decision: ask
    ask: { kind: veto, role: approver, ttl: 2m }

  - name: built-in workspace tools
    tool: [read_file, write_file, edit_file, list_files, search, shell, read_output, handoff, update_tasks, ask_human, upgrade_tier]
    decision: allow

  - name: browser tools
    tool: "browser_*"
    decision: allow
`;

/**
 * Self-improvement (docs/improvements.md#the-policy): the improver's tools,
 * load_skill, and every runtime tool a hack cycle's gate let through and every
 * tool of an installed extension (matched as "runtime_tool" and
 * "extension_tool" when no rule names them).
 */
const selfImprovementRule = (tools: string[]) => `
  - name: self-improvement - the improver's tools, skills and runtime tools
    tool: [${tools.join(", ")}]
    decision: allow
`;

/** Each list the rule had, oldest first; the last is the current one. */
const SELF_IMPROVEMENT_TOOLS = [
  ["propose_runtime_tool", "test_runtime_tool", "propose_skill", "load_skill", "runtime_tool"],
  ["propose_runtime_tool", "test_runtime_tool", "propose_skill", "load_skill", "runtime_tool", "extension_tool"],
  ["propose_runtime_tool", "test_runtime_tool", "propose_skill", "load_skill", "runtime_tool", "extension_tool", "propose_extension"],
];
const CURRENT_TOOLS = SELF_IMPROVEMENT_TOOLS[SELF_IMPROVEMENT_TOOLS.length - 1];

/** Reviewed changes (docs/changes.md): proposing is safe, since nothing merges without its checks and a person's approval. */
const CHANGES_RULE = `
  - name: reviewed changes - an agent proposes, its checks and an approver decide
    tool: propose_change
    decision: allow
`;

/**
 * MCP tools (docs/mcp.md) are matched as mcp:<server>/<tool> when no rule
 * names them. An admin turned each one on after reading its definition, and a
 * changed definition is off until reviewed; rules above this one can still
 * ask or deny for a server, a tool or its arguments.
 */
const MCP_RULE = `
  - name: MCP tools an admin turned on
    tool: "mcp:*/*"
    decision: allow
`;

/**
 * Memory (docs/memory.md): an agent's notes to its later runs and its team's.
 * What it saves reaches later prompts, so an agent spec can make each saved
 * memory wait for a person's Keep (guardrails.memoryConfirm); a rule above
 * this one can ask or deny instead.
 */
const MEMORY_RULE = `
  - name: memory - remember and recall
    tool: [remember, recall]
    decision: allow
`;

/**
 * The rules read command lines, not programs: code given inline to an
 * interpreter could run a deploy or a push the deploy rule never sees
 * (docs/security.md#the-policy-reads-command-lines). Shell reading offers such
 * a call as `python3 -c CODE`, `php -r CODE` or `node -e CODE`; scripts
 * (`node --test`, `python3 script.py`) still run.
 */
const INLINE_CODE_RULE = `  - name: code given inline to an interpreter needs approval (the rules cannot read what it runs)
    tool: shell
    args:
      command: { pattern: '^(python|pypy)[0-9.]* -c( |$)|^php[0-9.]* -r( |$)|^(perl[0-9.]*|ruby[0-9.]*|node|nodejs|bun|deno|lua[0-9.]*|luajit|Rscript|osascript) -e( |$)' }
    decision: ask
    ask: { kind: approve, role: approver }

`;

/** The first default with the inline-code rule among the ask rules, before the general allow. */
const ASKING_DEFAULT = FIRST_DEFAULT.replace("  - name: built-in workspace tools", `${INLINE_CODE_RULE}  - name: built-in workspace tools`);

/** The policy as released until its header pointed at a document Rein does not ship. */
const SPEC_HEADED_DEFAULT = ASKING_DEFAULT + selfImprovementRule(CURRENT_TOOLS) + CHANGES_RULE + MCP_RULE + MEMORY_RULE;

/** The same rules, the header pointing at the page that explains them. */
const DOCS_HEADED_DEFAULT = SPEC_HEADED_DEFAULT.replace(
  "# Rein tool policy (PolicyGate, SPEC section 5).",
  "# Rein tool policy (PolicyGate; explained in docs/human-requests-and-policy.md).",
);

/**
 * Remote A2A agents (docs/a2a.md#remote-agents): an admin added each one and
 * an agent spec must list the tool; rules above this one can ask or deny for
 * an agent, a team or a remote (args: { agent: … }).
 */
const A2A_RULE = `
  - name: remote A2A agents an admin added
    tool: call_remote_agent
    decision: allow
`;

/**
 * Hosted agents (docs/hosted-agents.md#permissions): their commands and file
 * changes are decided as shell and write_file above; their other actions (a
 * fetch, a mode switch) are matched as hosted:<kind>.
 */
const HOSTED_RULE = `
  - name: hosted agents' other actions
    tool: "hosted:*"
    decision: allow
`;

/** Today's default. */
export const DEFAULT_POLICY = DOCS_HEADED_DEFAULT + A2A_RULE + HOSTED_RULE;

/** Earlier defaults, exactly as released: a stored one nobody edited is brought up to DEFAULT_POLICY. */
export const EARLIER_DEFAULT_POLICIES: readonly string[] = [
  FIRST_DEFAULT,
  ...SELF_IMPROVEMENT_TOOLS.slice(0, -1).map((tools) => FIRST_DEFAULT + selfImprovementRule(tools)),
  FIRST_DEFAULT + selfImprovementRule(SELF_IMPROVEMENT_TOOLS[1]) + CHANGES_RULE,
  FIRST_DEFAULT + selfImprovementRule(CURRENT_TOOLS) + CHANGES_RULE,
  FIRST_DEFAULT + selfImprovementRule(CURRENT_TOOLS) + CHANGES_RULE + MCP_RULE,
  FIRST_DEFAULT + selfImprovementRule(CURRENT_TOOLS) + CHANGES_RULE + MCP_RULE + MEMORY_RULE,
  SPEC_HEADED_DEFAULT,
  DOCS_HEADED_DEFAULT,
  DOCS_HEADED_DEFAULT + A2A_RULE,
];
