/**
 * The one composition of a pass: the engine, the command plane and their timers, as the gateway,
 * the fixture runner and replay all run it. Pure: the caller says what time it is.
 */
package io.sentinel.pass;
