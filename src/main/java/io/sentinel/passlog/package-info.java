/**
 * The pass log's values: what the gateway remembers of each pass, as plain values (the observations
 * it accepted, the pass's record, the commands its decisions asked for, a window of them). Pure:
 * the store's writer ({@code store.Journal}) keeps them, replay reads them back, the wire codec
 * ({@code wire.PassLogJson}) writes their NDJSON; none adds meaning to them.
 */
package io.sentinel.passlog;
