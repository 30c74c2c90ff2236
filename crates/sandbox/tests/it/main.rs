//! Sandbox integration tests on real temp folders: scope, graph methods, snapshots, commit, journal.

mod archive;
mod commit;
mod duplicates;
mod extract_into;
mod hostile;
mod methods;
mod organize;
mod parse;
mod rollback;
mod scope;
mod similar;
mod support;
mod undo;
mod view;
