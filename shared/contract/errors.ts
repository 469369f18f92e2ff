import { z } from 'zod';

/** Error body of the spec (2.6): every non-2xx answer of the API has this shape. */
export const ErrorItem = z
  .object({
    code: z.string().regex(/^E_[A-Z_]+$/),
    message: z.string().min(1),
    field: z.string().optional(),
  })
  .meta({ id: 'ErrorItem' });

export const ErrorBody = z.object({ errors: z.array(ErrorItem).min(1) }).meta({ id: 'Error' });

export type ErrorItem = z.infer<typeof ErrorItem>;
export type ErrorBody = z.infer<typeof ErrorBody>;

/** An error the API answers with; thrown or returned by handlers and rendered by one middleware. */
export class ApiError extends Error {
  readonly status: number;
  readonly items: ErrorItem[];
  readonly headers: Record<string, string>;

  constructor(status: number, items: ErrorItem[] | ErrorItem, headers: Record<string, string> = {}) {
    const list = Array.isArray(items) ? items : [items];
    super(list.map((i) => i.message).join('; '));
    this.status = status;
    this.items = list;
    this.headers = headers;
  }

  body(): ErrorBody {
    return { errors: this.items };
  }
}
