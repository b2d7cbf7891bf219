/**
 * What the gateway remembers, as plain values: the observations it accepted, the commands its
 * decisions asked for, and the NDJSON form both take in an exported window. Pure: the store writes
 * these to PostgreSQL, replay reads them back, neither adds meaning to them.
 */
package io.sentinel.journal;
