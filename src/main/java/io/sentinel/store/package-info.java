/**
 * The PostgreSQL adapter: the only package that knows SQL, JDBC (Flyway's migrations) and the
 * reactive client. It keeps what the core produced and gives it back at a restart; it never decides
 * anything. The engine offers each pass to a {@link io.sentinel.store.Journal} and never waits for
 * it. How the runtime plugs it in: docs/persistence.md.
 */
package io.sentinel.store;
