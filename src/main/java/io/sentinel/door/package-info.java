/**
 * The door: what a value entering the gateway may be, checked once where it enters (MQTT payloads,
 * device timestamps, HTTP bodies and parameters, revision documents, rule files) against what every
 * later stage can hold: strict UTF-8, no control characters, finite numbers, instants inside a sane
 * window and PostgreSQL's, bounded size and nesting. Pure Java, imports none of ours; the parsers'
 * own limits are set from here ({@code wire.JsonDoor}, {@code site.yaml.YamlFile}).
 * docs/hostile-input.md records each limit and why.
 */
package io.sentinel.door;
