//! Tests of parameter extraction.
