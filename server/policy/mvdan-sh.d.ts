// mvdan-sh ships no types; shell.ts describes the little of its API it uses.
declare module "mvdan-sh";
