// In-process fan-out of committed events to live listeners (socket.io).
// Events reach the bus only after their rows are written.
import { EventEmitter } from "node:events";
import type { RunEventRecord, TransientRunMessage } from "./events";

export class RunEventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish(runId: string, events: RunEventRecord[]) {
    this.emitter.emit(`run:${runId}`, events);
    this.emitter.emit("any", runId, events);
  }

  publishTransient(message: TransientRunMessage) {
    this.emitter.emit(`live:${message.runId}`, message);
  }

  onRun(runId: string, listener: (events: RunEventRecord[]) => void): () => void {
    this.emitter.on(`run:${runId}`, listener);
    return () => this.emitter.off(`run:${runId}`, listener);
  }

  onTransient(runId: string, listener: (message: TransientRunMessage) => void): () => void {
    this.emitter.on(`live:${runId}`, listener);
    return () => this.emitter.off(`live:${runId}`, listener);
  }

  onAny(listener: (runId: string, events: RunEventRecord[]) => void): () => void {
    this.emitter.on("any", listener);
    return () => this.emitter.off("any", listener);
  }
}
