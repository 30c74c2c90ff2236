//! Tests of the rule planner.
