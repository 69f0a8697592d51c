/**
 * Reading a job's output file safely and within bounds, shared by the visibility API (a file on the
 * controller's machine) and the agent (its own jobs' files, served to the visibility API).
 */
package io.octomy.batch.output;
