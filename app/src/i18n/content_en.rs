//! The home page's long-form copy in English. Written as product copy, not
//! translated line by line, but it makes the same promises with the same
//! numbers as the Chinese page. British spelling. Where it departs from the
//! seed on purpose, docs/decisions/content.md says why.

use super::content::{Content, Faq, Highlight, NotFor, Step, Workload};

pub static CONTENT_EN: Content = Content {
    hero_title: "You get the whole card, not a slice",
    hero_body: "A shared GPU means waiting for someone else’s job to finish before yours starts. Every card in this line is passed through to a single instance over a full PCIe x16 link, and stays with that instance, busy or idle, until you cancel.",
    host_line: "EPYC 9354P host · PCIe 4.0 x16 passthrough · no vGPU time-slicing",
    latency_title: "34 cities in 29 countries and regions",
    latency_body: "Latency figures are medians measured by our own probes, not numbers from a vendor’s brochure. They change, and this page changes with them.",

    passthrough_title: "Passthrough, and why it matters",
    passthrough_intro: "Most cheap GPU capacity is a slice of one card with a queue in front of it. The number on the product page is the card’s memory, not yours, and the throughput you measure depends on who else is running jobs on that card today.",
    passthrough_callout: "No vGPU, no time-slicing, no scheduler between you and the silicon.",
    passthrough_paras: [
        "Here the hypervisor binds the card to your instance over a 16-lane PCIe 4.0 link. The whole device is yours: all of its memory, every compute unit, the full copy-engine bandwidth. Nothing is partitioned, nothing is queued, and no other tenant ever shows up in your device list.",
        "In practice, tonight’s benchmark matches last Tuesday’s. A fine-tuning run you expect to take two days finishes within an hour of your estimate. Interactive work stays interactive, because there is no one else’s batch job ahead of you.",
    ],
    passthrough_points: [
        Highlight {
            title: "All the memory, all the time",
            body: "48 GB on the L40S, 20 GB on the RTX 4000 Ada, and none of it held back for a hypervisor partition. If it’s on the card, your processes can address it.",
        },
        Highlight {
            title: "Idle time costs nothing extra",
            body: "Cards are billed by the month, not by the second. Leave a model loaded for three weeks between experiments; nobody reclaims the card while you sleep.",
        },
        Highlight {
            title: "Two cards, one host",
            body: "The dual-card plan puts both cards in the same NUMA domain of one host. They talk over PCIe rather than a dedicated card-to-card link, which is worth knowing before you plan a training topology.",
        },
        Highlight {
            title: "Your own software stack",
            body: "We hand you a machine with a card in it and step back. The driver, container runtime, framework versions and kernel are all yours. No managed layer second-guesses your choice of Python.",
        },
    ],

    workloads_title: "What these cards are good for",
    workloads_intro: [
        "Both are workstation-class cards, not the top end of a training cluster, and an honest pitch should say so.",
        "Inference, fine-tuning, rendering and batch number-crunching. In that order.",
    ],
    workloads_body: "If your model fits in 48 GB, an L40S will run it well for as long as you keep paying. If it doesn’t, no amount of enthusiasm will help: the honest next step is quantisation, sharding across the dual-card plan, or a different class of machine altogether.",
    workloads_caption: "Which card suits which workload, and the real bottleneck",
    workloads_headers: ["Workload", "Which card", "The real bottleneck"],
    workloads: [
        Workload {
            workload: "Serving a quantised model to real users",
            card: "RTX 4000 Ada",
            bottleneck: "Memory, then concurrent requests",
        },
        Workload {
            workload: "Serving a mid-sized model at full precision",
            card: "L40S",
            bottleneck: "48 GB is the hard limit that decides everything",
        },
        Workload {
            workload: "Fine-tuning with adapters",
            card: "L40S",
            bottleneck: "Memory during the backward pass, not raw throughput",
        },
        Workload {
            workload: "Full fine-tuning of a large model",
            card: "Two L40S, or another provider",
            bottleneck: "Card-to-card bandwidth over PCIe becomes the ceiling",
        },
        Workload {
            workload: "Batch rendering and video encoding",
            card: "Either",
            bottleneck: "Disk and network run out far more often than the card does",
        },
        Workload {
            workload: "Double-precision numerical simulation",
            card: "Usually neither",
            bottleneck: "These aren’t double-precision parts. Use the EPYC cores.",
        },
    ],

    not_for_title: "Who shouldn’t buy this",
    not_for_intro: [
        "GPU capacity invites more optimistic planning than anything else we sell. A few kinds of buyer should skip this tier.",
        "For a small number of customers, the most useful thing we can say is that we’re not the right fit.",
    ],
    not_for: [
        NotFor {
            id: "from-scratch",
            title: "You’re training something huge from scratch",
            body: "Multi-node training with high-bandwidth interconnects between hosts isn’t what this product is for. Two cards on PCIe in one host is our ceiling, and pretending otherwise would only cost you weeks.",
        },
        NotFor {
            id: "per-second",
            title: "You want per-second billing",
            body: "Cards are rented by the month. If you really only use one for twenty minutes a week, a pay-as-you-go platform will be cheaper than us, and we’d rather tell you now.",
        },
        NotFor {
            id: "wont-fit",
            title: "Your model won’t fit",
            body: "96 GB across two cards is the most this line can hold. Do the memory arithmetic for weights, activations and optimizer state before you order, not after.",
        },
        NotFor {
            id: "fp64",
            title: "You need double precision",
            body: "These are single- and mixed-precision parts. Scientific work that insists on FP64 throughput will run faster on the EPYC cores than on either card.",
        },
        NotFor {
            id: "managed-stack",
            title: "You want us to manage your stack",
            body: "We don’t maintain your driver, CUDA version or framework matrix. The hardening add-on covers the operating-system baseline, and that’s where it stops.",
        },
    ],

    host_title: "The host around the card",
    host_intro: "A starved GPU is an expensive space heater. The host matters as much as the card, and it’s exactly where most cheap GPU offers quietly cut corners.",
    host_summary: "EPYC 9354P, ECC memory, local NVMe, a 40 Gbit/s port.",
    host_items: [
        Highlight {
            title: "Cores that keep it fed",
            body: "8 to 32 dedicated EPYC cores depending on the plan, pinned to the same NUMA domain as the card. Data loading and preprocessing are usually what stalls a training loop, and that’s CPU work.",
        },
        Highlight {
            title: "ECC memory on the host",
            body: "Registered DDR5-4800, 64 to 256 GB. A 48-hour job shouldn’t be ruined by a single flipped bit in a data-loader buffer.",
        },
        Highlight {
            title: "NVMe that keeps up",
            body: "1 to 4 TB of local Gen4 NVMe, mirrored. Datasets are read from the machine itself, not from a network volume that someone else may be reading at the same time.",
        },
        Highlight {
            title: "A 40 Gbit/s port",
            body: "Pulling a multi-terabyte dataset should take one evening. The 40 Gbit/s port has a fair-use cap of 250 TB a month, stated with the prices above.",
        },
        Highlight {
            title: "Out-of-band console",
            body: "Serial and VNC access over an authenticated tunnel, included. When a driver install goes wrong in the middle of the night you can still reach the machine, and that’s the whole reason it exists.",
        },
    ],
    host_closing: "Because the card is passed through, the driver installs inside your instance just as it would on any other machine. Nothing on the host touches your frameworks, and a reboot renegotiates nothing.",

    sites_title: "Where the cards are",
    sites_subtitle: "Eight sites in six countries. GPUs need power and cooling, not postcodes.",
    sites_paras: [
        "Amsterdam, Frankfurt, London, New York, Dallas, Los Angeles, Singapore and Tokyo. These are halls with the power density and cooling to run cards flat out around the clock, not politely in short bursts.",
        "Frankfurt is the busiest GPU hall we run, and new cards arrive there first. Dallas is where capacity is easiest to get at short notice, because power is cheap and the floor space is large. Los Angeles has cards too, but they often sell out, so if you need a westbound route to Asia, order early.",
        "Stock on this line really does move fast. A card shown as available at noon may be gone by evening, and we would rather show you an accurate sold-out label than take an order we can’t deliver this week.",
    ],

    long_jobs_title: "Long jobs, and how not to lose them",
    long_jobs_intro: "A 48-hour fine-tune is a bet that nothing goes wrong for two days. Structure the job so that if you lose the bet, you lose an hour, not the weekend.",
    long_jobs_callout: "Checkpoints. We’ll say it even if you’ve heard it a hundred times.",
    long_jobs_steps: [
        Step {
            number: "01",
            title: "Checkpoint often to local NVMe",
            body: "Save to local disk every few hundred steps; it’s fast enough that the overhead is negligible. A job that can’t resume is a job you’ll end up running twice.",
        },
        Step {
            number: "02",
            title: "Copy checkpoints off the machine",
            body: "Local NVMe is mirrored, not immortal. Off-node backup writes to another city every night, and it’s the cheapest insurance on this page.",
        },
        Step {
            number: "03",
            title: "Snapshot before you touch the driver",
            body: "Driver and framework upgrades are the main way a working environment becomes a broken one. A snapshot takes seconds to create and seconds to restore.",
        },
        Step {
            number: "04",
            title: "Watch temperatures and clocks, not just the loss",
            body: "Cards throttle when conditions aren’t right. If throughput drops while the code hasn’t changed, check the clock data before you rewrite the data loader.",
        },
        Step {
            number: "05",
            title: "Ask before you scale out",
            body: "If the next step needs four or eight cards, tell support what you’re trying to do. Sometimes the answer is a bare-metal server; occasionally it’s that we’re not the right supplier for you.",
        },
    ],

    failure_title: "When the hardware fails",
    failure_intro: "GPUs usually fade rather than die outright: clocks drop, corrected memory errors show up on the card, or a job runs a third slower for no reason you can find in your code.",
    failure_subtitle: "Cards fail differently from disks: more slowly, and with more warning.",
    failure_paras: [
        "Our monitoring continuously checks card temperatures, clock behaviour and error counters on every host. When a card starts to misbehave, we contact you before it stops working and schedule the replacement in a window that doesn’t disrupt your jobs. If a card fails outright, your instance is rebuilt on another host at the same site, with the same volumes and addresses.",
        "Recovery on this line is slower than on our others, and the reason is worth spelling out: a terabyte of dataset and a resident model take real time to move and reload. Plan for an hour of recovery, not fifteen minutes, and keep checkpoints somewhere other than the machine that failed.",
    ],
    failure_callouts: [
        Highlight {
            title: "Warning before failure, wherever possible",
            body: "Error counters and clock telemetry are read continuously. Most card replacements happen in a window agreed with the customer in advance.",
        },
        Highlight {
            title: "Same volumes, same addresses",
            body: "A rebuild keeps your NVMe contents and IP addresses. Nothing needs to change in your DNS or certificates.",
        },
        Highlight {
            title: "Automatic credits, no claim needed",
            body: "The 99.99% contractual availability guarantee here is the same as on our other lines. If a server falls short in a month, a credit note for 10% to 100% of its fee for that month is issued automatically when the month closes, with no claim from you: it comes off your next invoice, or is paid back to you if no invoice follows.",
        },
    ],

    faq_title: "Questions about this line",
    faqs: [
        Faq {
            question: "Do I really get the whole card?",
            answer: "The physical device is bound to your instance over a full PCIe x16 link. There is no vGPU partitioning, no time-slicing and no other tenant. Your device list shows one card because there is exactly one card.",
        },
        Faq {
            question: "Can I pay by the second or by the hour?",
            answer: "No. Cards are billed monthly, and the minimum commitment is one month. If your workload really is bursty, a pay-as-you-go provider will be cheaper, and we won’t pretend otherwise.",
        },
        Faq {
            question: "Do the images come with the GPU driver preinstalled?",
            answer: "No. The images you can choose (Ubuntu 24.04 LTS, Debian 13, Rocky Linux 9) are the distributions’ plain installs without a GPU driver; you install the driver inside your instance. Half of our GPU customers have strong opinions about driver versions, and the other half bring containers with their own drivers.",
        },
        Faq {
            question: "Are the two cards in the dual-card plan joined by NVLink or another dedicated interconnect?",
            answer: "No. They sit in the same host and the same NUMA domain and talk over PCIe. That’s enough for data-parallel workloads with small gradient exchanges. It isn’t enough for workloads that depend on a high-bandwidth card-to-card interconnect, so set your expectations accordingly.",
        },
        Faq {
            question: "Can I move an existing server to this line, or add a card to it?",
            answer: "No. Passthrough needs a host built for it, down to the PCIe topology and the power budget. Moving to this line means a new instance and a data migration.",
        },
        Faq {
            question: "What happens if my server goes down, and how are SLA breaches compensated?",
            answer: "If a card or host fails, we rebuild your instance on another host at the same site, with the same volumes and IP addresses. Downtime counts against the 99.99% monthly availability, except inside maintenance windows you accepted. If a month closes below 99.99%, a credit note for 10% to 100% of that server’s fee for the month is issued automatically, with no claim from you: it comes off your next invoice, or is paid back to you if no invoice follows.",
        },
        Faq {
            question: "What happens when I cancel?",
            answer: "The volumes are wiped and the card goes back into the pool. Move your checkpoints off before the term ends: a cancelled instance is gone for good, not parked somewhere in case you change your mind.",
        },
    ],
};
