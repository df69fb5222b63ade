//! Messages as a reader sees them, the offset ranges a batch covers, and how a timeline
//! shows them.

/// One message as a reader sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub partition: i64,
    pub offset: i64,
    pub producer_id: i64,
    pub seq_no: i64,
    pub payload: String,
}

/// A range of offsets `[from, to)` of one partition, read by a consumer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffsetRange {
    pub partition: i64,
    pub from: i64,
    pub to: i64,
}

/// A batch of messages and the offsets it covers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Batch {
    pub messages: Vec<Message>,
    pub ranges: Vec<OffsetRange>,
}

/// A message in a timeline: `writer#seq_no` from a payload `writer_id:seq_no:…`, else the
/// producer and the payload's first characters.
pub(crate) fn describe_payload(producer_id: i64, payload: &str) -> String {
    let mut parts = payload.split(':');
    match (parts.next(), parts.next()) {
        (Some(writer), Some(seq_no)) => format!("{writer}#{seq_no}"),
        _ => format!(
            "{producer_id}:{}",
            payload.chars().take(8).collect::<String>()
        ),
    }
}

/// A batch in a timeline: its messages as `writer#seq_no` and its offset ranges.
pub(crate) fn describe(batch: &Batch) -> String {
    if batch.messages.is_empty() {
        return "empty".into();
    }
    let messages: Vec<String> = batch
        .messages
        .iter()
        .map(|m| describe_payload(m.producer_id, &m.payload))
        .collect();
    let ranges: Vec<String> = batch
        .ranges
        .iter()
        .map(|r| format!("p{}[{}..{})", r.partition, r.from, r.to))
        .collect();
    format!("{} at {}", messages.join(" "), ranges.join(" "))
}
