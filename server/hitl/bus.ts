// In-process fan-out of human-request changes (inbox live updates); rows are
// written before anything is published.
import { EventEmitter } from "node:events";

export interface RequestChange {
  requestId: string;
  runId: string;
  state: string;
  teamId: string | null;
}

export class RequestBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish(change: RequestChange) {
    this.emitter.emit("change", change);
  }

  on(listener: (change: RequestChange) => void): () => void {
    this.emitter.on("change", listener);
    return () => this.emitter.off("change", listener);
  }
}
