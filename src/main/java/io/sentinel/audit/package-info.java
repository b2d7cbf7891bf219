/**
 * The audit log (seed 001, "Audit fields"): a record of every rule firing, action and arbitration
 * conflict, hash-chained so that an edited, removed or reordered record is found. Pure: SHA-256
 * over canonical JSON, no SQL; the store keeps the records, this package says what they are.
 */
package io.sentinel.audit;
