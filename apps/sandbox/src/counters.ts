// What the sandbox counts, read through GET /_sandbox/counters.
export class Counters {
  tokenCreations = 0;
  readonly requests: Record<string, number> = {};
  deliveriesSent = 0;
  readonly deliveriesByStatus: Record<string, number> = {};

  request(operation: string): void {
    this.requests[operation] = (this.requests[operation] ?? 0) + 1;
  }

  deliverySent(status: number | undefined): void {
    this.deliveriesSent++;
    const key = status === undefined ? 'error' : String(status);
    this.deliveriesByStatus[key] = (this.deliveriesByStatus[key] ?? 0) + 1;
  }

  snapshot() {
    return {
      tokenCreations: this.tokenCreations,
      requests: { ...this.requests },
      deliveries: { sent: this.deliveriesSent, byStatus: { ...this.deliveriesByStatus } },
    };
  }
}
