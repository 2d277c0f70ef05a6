// What the agent prints: plain sentences with the time, so the owner can see what Rein asked of this computer.
const time = () => new Date().toTimeString().slice(0, 8);

export const say = (message: string): void => void process.stdout.write(`[${time()}] ${message}\n`);
export const warn = (message: string): void => void process.stderr.write(`[${time()}] ${message}\n`);
