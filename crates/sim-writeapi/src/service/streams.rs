//! Streams: `CreateWriteStream`, `GetWriteStream`, the `AppendRows` connection to a
//! stream (one at a time for an application-created stream), and `FinalizeWriteStream`.

use super::{State, Stream, WriteApi, is_default, table_of};
use crate::status::not_found;
use crate::{Code, Connection, Status, StreamType, WriteStream, short, stream_name};
use labkit::fault::{Fate, Glyph, Sim};

impl WriteApi {
    /// `CreateWriteStream`: a new application-created stream of `table`.
    pub fn create_write_stream(
        &mut self,
        sim: &mut Sim,
        table: &str,
        stream_type: StreamType,
    ) -> Result<WriteStream, Status> {
        self.settle(sim);
        if !self.tables.iter().any(|t| t == table) {
            return Err(Status::new(
                Code::NotFound,
                None,
                format!("table {table} not found"),
            ));
        }
        if stream_type == StreamType::Buffered {
            return Err(Status::new(
                Code::InvalidArgument,
                None,
                "BUFFERED streams are not modelled by this simulator",
            ));
        }
        let name = stream_name(table, &format!("s{}", self.next_stream));
        self.next_stream += 1;
        let now = sim.now();
        self.streams.insert(
            name.clone(),
            Stream {
                seq: self.next_stream - 1,
                table: table.to_string(),
                stream_type,
                state: State::Open,
                create_time: now,
                finalize_time: None,
                commit_time: if stream_type == StreamType::Committed {
                    Some(now)
                } else {
                    None
                },
                rows: Vec::new(),
                connection: None,
            },
        );
        sim.note("writeapi", || {
            format!("CreateWriteStream {:?} -> {}", stream_type, short(&name))
        });
        self.get_write_stream(&name)
    }

    /// `GetWriteStream`.
    pub fn get_write_stream(&self, name: &str) -> Result<WriteStream, Status> {
        if is_default(name) {
            let table = table_of(name).unwrap_or_default();
            if self.tables.iter().any(|t| t == table) {
                return Ok(WriteStream {
                    name: name.to_string(),
                    stream_type: StreamType::Committed,
                    create_time: 0,
                    commit_time: Some(0),
                });
            }
        }
        let stream = self.streams.get(name).ok_or_else(|| not_found(name))?;
        Ok(WriteStream {
            name: name.to_string(),
            stream_type: stream.stream_type,
            create_time: stream.create_time,
            commit_time: stream.commit_time,
        })
    }

    /// Opens an `AppendRows` connection. The default stream takes any number of
    /// connections; an application-created stream only one at a time.
    pub fn connect(&mut self, sim: &mut Sim, write_stream: &str) -> Result<Connection, Status> {
        self.settle(sim);
        let id = self.next_connection;
        if is_default(write_stream) {
            let table = table_of(write_stream).unwrap_or_default();
            if !self.tables.iter().any(|t| t == table) {
                return Err(not_found(write_stream));
            }
            self.next_connection += 1;
            self.default_connections += 1;
            return Ok(Connection {
                id,
                write_stream: write_stream.to_string(),
            });
        }
        let stream = self
            .streams
            .get_mut(write_stream)
            .ok_or_else(|| not_found(write_stream))?;
        if stream.connection.is_some() {
            return Err(Status::new(
                Code::FailedPrecondition,
                None,
                "an application-created stream can have only one active connection",
            ));
        }
        self.next_connection += 1;
        stream.connection = Some(id);
        Ok(Connection {
            id,
            write_stream: write_stream.to_string(),
        })
    }

    /// Closes a connection (the client is done, or its process died).
    pub fn disconnect(&mut self, connection: &Connection) {
        if let Some(stream) = self.streams.get_mut(&connection.write_stream)
            && stream.connection == Some(connection.id)
        {
            stream.connection = None;
        }
    }

    pub(super) fn connection_is_open(&self, connection: &Connection) -> bool {
        if is_default(&connection.write_stream) {
            return true;
        }
        self.streams
            .get(&connection.write_stream)
            .is_some_and(|s| s.connection == Some(connection.id))
    }

    /// `FinalizeWriteStream`: no more appends. Returns `row_count`.
    pub fn finalize_write_stream(&mut self, sim: &mut Sim, name: &str) -> Result<u64, Status> {
        self.settle(sim);
        if is_default(name) {
            return Err(Status::new(
                Code::InvalidArgument,
                None,
                "Finalize is not supported on the '_default' stream",
            ));
        }
        if !self.streams.contains_key(name) {
            return Err(not_found(name));
        }
        let fate = sim.fate("writeapi:FinalizeWriteStream", self.faults.finalize);
        let now = sim.now();
        let applied = matches!(fate, Fate::Ok | Fate::AppliedResponseLost);
        let stream = self.streams.get_mut(name).expect("checked");
        if applied && stream.state == State::Open {
            stream.state = State::Finalized;
            stream.finalize_time = Some(now);
        }
        let row_count = stream.rows.len() as u64;
        sim.event(
            "writeapi",
            if fate == Fate::Ok {
                Glyph::Normal
            } else {
                Glyph::Indefinite
            },
            || {
                (
                    format!(
                        "FinalizeWriteStream {} -> {}",
                        short(name),
                        if fate == Fate::Ok {
                            format!("row_count {row_count}")
                        } else {
                            "DEADLINE_EXCEEDED".into()
                        }
                    ),
                    if fate == Fate::Ok {
                        String::new()
                    } else {
                        fate.label().into()
                    },
                )
            },
        );
        if fate == Fate::Ok {
            Ok(row_count)
        } else {
            Err(Status::new(Code::DeadlineExceeded, None, "no response"))
        }
    }
}
