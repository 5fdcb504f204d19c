// How access answers a client it stops: a refusal as text (AccessDenied, which server.ts's error
// handler answers with its status) or a page no cache keeps.
import type { FastifyReply } from 'fastify';

/** A refusal the console answers as text. */
export class AccessDenied extends Error {
  override readonly name = 'AccessDenied';
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** An HTML page as the answer, never stored by a cache. */
export const html = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body);
