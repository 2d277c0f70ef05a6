/** An error the CLI prints as one line, without a stack. */
export class CliError extends Error {}
