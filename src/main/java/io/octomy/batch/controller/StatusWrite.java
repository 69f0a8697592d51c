package io.octomy.batch.controller;

import io.octomy.batch.api.BatchJob;

/**
 * One status the loop will write: the job as read from the cache (the write is conditional on its
 * resourceVersion), what to write, and whether it admits the job (a failed admission is forgotten,
 * so nothing stays reserved for it).
 */
record StatusWrite(BatchJob job, StatusComposer.Composed composed, boolean admission) {}
