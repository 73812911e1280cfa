import type { z } from 'zod';
import { invoiceEntity } from '../../entities/invoice.entity.ts';
import { rowToRecord, selectColumns } from '../entity-record.ts';

/** An invoice as the API answers it (docs/contract.md, "Invoice"). */
export const invoiceRecord = invoiceEntity.record;
export type InvoiceRecord = z.infer<typeof invoiceRecord>;

export const INVOICE_COLUMNS = selectColumns(invoiceEntity);

export const invoiceRowToRecord: (row: Record<string, unknown>) => InvoiceRecord =
  rowToRecord(invoiceEntity);
