/** An error the CLI prints as one line, without a stack. */
export class CliError extends Error {}

/** What the CLI prints on standard error before it exits with 1: a CliError as one line, anything else with its stack. */
export function errorOutput(err: unknown): unknown {
  return err instanceof CliError ? `rein: ${err.message}` : err;
}
