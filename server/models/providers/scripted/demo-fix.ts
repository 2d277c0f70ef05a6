// The reviewed-change demo (docs/changes.md), played by the scripted
// model. demo-fix works in a worktree of the demo repository, demo-service:
// it runs the tests, finds the discount rounding down, fixes it, runs the
// tests again and proposes the change. Every step depends on the one before:
// a failing read, edit or test run stops the demo and says why.
import type { Scenario } from "../../types";

export const DEMO_FIX_GOAL = "Fix the failing test of demo-service and propose the change for review";

export const DEMO_FIX: Scenario = {
  stopOnError: true,
  turns: [
    {
      text: "Running the repository's tests to see what fails.",
      toolCalls: [{ tool: "shell", args: { command: "node --test 2>&1 | tail -n 40" } }],
    },
    {
      text: "“a discount rounds to the nearest cent” fails: 995 cents less 10% should be 896. Reading the pricing code.",
      toolCalls: [{ tool: "read_file", args: { path: "src/price.mjs" } }],
    },
    {
      text: "applyDiscount truncates with Math.floor, so 895.5 becomes 895. Rounding to the nearest cent is Math.round.",
      toolCalls: [
        {
          tool: "edit_file",
          args: {
            path: "src/price.mjs",
            oldString: "return Math.floor((cents * (100 - percent)) / 100);",
            newString: "return Math.round((cents * (100 - percent)) / 100);",
          },
        },
      ],
    },
    {
      text: "Running the tests again; they must all pass before I propose anything.",
      toolCalls: [{ tool: "shell", args: { command: "node --test" } }],
    },
    {
      text: "All tests pass. Proposing the change; Rein runs the tests again in a sandbox and asks an approver.",
      toolCalls: [
        {
          tool: "propose_change",
          args: {
            title: "Round discounts to the nearest cent",
            hypothesis:
              "applyDiscount used Math.floor, which drops half a cent and more (995 less 10% gave 895, not 896). Math.round rounds to the nearest cent as its comment promises; " +
              "the failing test now passes and the other two still do (node --test in the worktree).",
            fixes: "the test “a discount rounds to the nearest cent” fails without this change",
          },
        },
      ],
    },
    {
      text: "Done: the change request is {{result:propose_change.state}} (checks {{result:propose_change.checks.state}}). {{result:propose_change.next}}",
    },
  ],
};
