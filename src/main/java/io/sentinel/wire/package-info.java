/**
 * The one wire codec: the JSON the gateway speaks. MQTT payloads (commands, claims, events, status,
 * rejections), the HTTP API's views of the core's values, and the NDJSON of an exported window of
 * the pass log. Adapters ({@code mqtt}, {@code api}, {@code store}, {@code cli}) call it; it makes
 * no decision.
 */
package io.sentinel.wire;
