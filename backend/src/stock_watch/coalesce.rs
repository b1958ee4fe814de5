//! One read of a changing value shared by every caller who asked while it
//! had not started yet, and never by a caller who asked after it started.
//!
//! Exactness: a caller who asks while read *n* is in flight is answered by
//! read *n + 1* (or a later one), which starts after the ask, so it sees
//! every change committed before the caller asked, exactly as a read of its
//! own would. Reads run one at a time on one task while anyone waits, and
//! an idle server makes no reads at all.
//!
//! Under load, reads start at most every `SPACING`: back to back, one read
//! per round trip, PostgreSQL and this thread used 15% of both cores at
//! 22k requests/s (perf, docs/BENCHMARKS.md) for answers that mostly said
//! "unchanged". Spacing delays only the *start* of the next read, so every
//! answer still comes from a read that began after the caller asked.

use anyhow::Context;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch};

/// The shortest time between the starts of two reads: at most this much is
/// added to a request's wait, and at most 5,000 reads a second are made.
/// Measured on PostgreSQL (docs/BENCHMARKS.md): 500 µs left the storefront
/// waiting with CPU idle (59–63k req/s), 100–300 µs served 74–83k, back to
/// back 70k.
const SPACING: Duration = Duration::from_micros(200);

/// Reads the value; owned by the reading task, so it may keep a connection.
pub trait Reader: Send + 'static {
    fn read(&mut self) -> impl Future<Output = anyhow::Result<u64>> + Send;
}

pub struct Coalesced {
    queue: Arc<Mutex<Queue>>,
    /// Wakes the reading task; it stops once this side is dropped.
    wake: mpsc::Sender<()>,
    done: watch::Receiver<Answer>,
}

#[derive(Default)]
struct Queue {
    /// How many reads have started (the number of the latest).
    started: u64,
    /// Someone asked since the latest read started.
    waiting: bool,
}

#[derive(Clone)]
struct Answer {
    read: u64,
    value: Result<u64, Arc<anyhow::Error>>,
}

/// A caller's place in the queue: answered by the first read that started
/// after it asked.
pub struct Ticket {
    read: u64,
    done: watch::Receiver<Answer>,
}

impl Coalesced {
    /// Starts the reading task on a thread of its own: on the request
    /// runtime, every read's completion would queue behind the very
    /// requests waiting for it, and under load the whole batch would stall.
    pub fn start(reader: impl Reader) -> anyhow::Result<Coalesced> {
        let queue = Arc::new(Mutex::new(Queue::default()));
        let (wake, woken) = mpsc::channel(1);
        let (publish, done) = watch::channel(Answer {
            read: 0,
            value: Err(Arc::new(anyhow::anyhow!("nothing read yet"))),
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("starting the stock watch's runtime")?;
        let shared = queue.clone();
        std::thread::Builder::new()
            .name("stock-watch".to_owned())
            .spawn(move || runtime.block_on(serve(reader, shared, woken, publish)))
            .context("starting the stock watch's thread")?;
        Ok(Coalesced { queue, wake, done })
    }

    /// Takes a place in the queue now; the answer comes from a read that
    /// starts after this call.
    pub fn ask(&self) -> Ticket {
        let read = {
            let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
            queue.waiting = true;
            queue.started + 1
        };
        // A full channel means a wake-up is already pending, which will see
        // `waiting`. A closed one: the ticket's wait reports the stop.
        let _ = self.wake.try_send(());
        Ticket {
            read,
            done: self.done.clone(),
        }
    }

    pub async fn read(&self) -> anyhow::Result<u64> {
        self.ask().answer().await
    }
}

impl Ticket {
    pub async fn answer(&mut self) -> anyhow::Result<u64> {
        let read = self.read;
        let answer = self
            .done
            .wait_for(|a| a.read >= read)
            .await
            .map_err(|_| anyhow::anyhow!("the stock watch stopped"))?;
        match &answer.value {
            Ok(value) => Ok(*value),
            Err(error) => Err(anyhow::Error::new(Shared(error.clone()))),
        }
    }
}

/// One failed read, answered to every waiter: its causes stay reachable
/// (`source`), so a caller can still tell a database out of reach.
#[derive(Debug)]
struct Shared(Arc<anyhow::Error>);

impl std::fmt::Display for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&*self.0, f)
    }
}

impl std::error::Error for Shared {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        let inner: &(dyn std::error::Error + 'static) = (*self.0).as_ref();
        inner.source()
    }
}

async fn serve(
    mut reader: impl Reader,
    queue: Arc<Mutex<Queue>>,
    mut woken: mpsc::Receiver<()>,
    publish: watch::Sender<Answer>,
) {
    let mut last_start: Option<Instant> = None;
    while woken.recv().await.is_some() {
        loop {
            // A blocking sleep: tokio's timers tick in whole milliseconds,
            // and this thread has nothing else to do meanwhile.
            if let Some(wait) = last_start.and_then(|at| SPACING.checked_sub(at.elapsed())) {
                std::thread::sleep(wait);
            }
            let read = {
                let mut queue = queue.lock().unwrap_or_else(PoisonError::into_inner);
                if !queue.waiting {
                    break;
                }
                queue.waiting = false;
                queue.started += 1;
                queue.started
            };
            // Everyone who asked before the line above is answered by this
            // read, which starts only now.
            last_start = Some(Instant::now());
            let value = reader.read().await.map_err(Arc::new);
            publish.send_replace(Answer { read, value });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};
    use tokio::sync::oneshot;

    /// A reader the test drives: each read reports that it started and
    /// returns whatever the test hands it.
    struct Scripted {
        started: mpsc::UnboundedSender<oneshot::Sender<u64>>,
    }

    impl Reader for Scripted {
        async fn read(&mut self) -> anyhow::Result<u64> {
            let (give, value) = oneshot::channel();
            self.started.send(give)?;
            Ok(value.await?)
        }
    }

    /// Whether the ticket is answered without waiting (polled once).
    fn answered_now(ticket: &mut Ticket) -> Option<u64> {
        let mut answer = pin!(ticket.answer());
        match answer
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
        {
            Poll::Ready(value) => Some(value.expect("a value")),
            Poll::Pending => None,
        }
    }

    #[tokio::test]
    async fn callers_joining_a_read_in_flight_get_the_next_one() {
        let (started, mut reads) = mpsc::unbounded_channel();
        let watch = Coalesced::start(Scripted { started }).expect("started");

        let mut first = watch.ask();
        let read_1 = reads.recv().await.expect("read 1 starts");
        // Read 1 is in flight: these callers asked after it began.
        let (mut a, mut b, mut c) = (watch.ask(), watch.ask(), watch.ask());
        read_1.send(1).expect("read 1 answers");
        assert_eq!(first.answer().await.expect("first"), 1);

        // Read 1's answer is published, yet none of them takes it.
        assert_eq!(answered_now(&mut a), None);
        assert_eq!(answered_now(&mut b), None);
        assert_eq!(answered_now(&mut c), None);

        // One read, started after they asked, answers all three.
        let read_2 = reads.recv().await.expect("read 2 starts");
        let mut late = watch.ask(); // asked while read 2 is in flight
        read_2.send(2).expect("read 2 answers");
        assert_eq!(a.answer().await.expect("a"), 2);
        assert_eq!(b.answer().await.expect("b"), 2);
        assert_eq!(c.answer().await.expect("c"), 2);

        let read_3 = reads.recv().await.expect("read 3 starts");
        read_3.send(3).expect("read 3 answers");
        assert_eq!(late.answer().await.expect("late"), 3);
        // Nobody else asked: no fourth read.
        assert!(reads.try_recv().is_err());
        // A later caller finds no read in flight and starts one at once.
        let mut fresh = watch.ask();
        reads
            .recv()
            .await
            .expect("read 4 starts")
            .send(4)
            .expect("answers");
        assert_eq!(fresh.answer().await.expect("fresh"), 4);
    }

    struct Failing;

    impl Reader for Failing {
        async fn read(&mut self) -> anyhow::Result<u64> {
            anyhow::bail!("database unreachable")
        }
    }

    #[tokio::test]
    async fn a_failed_read_is_an_error_for_its_callers() {
        let watch = Coalesced::start(Failing).expect("started");
        let error = watch.read().await.expect_err("the read failed");
        assert!(format!("{error:#}").contains("database unreachable"));
    }
}
