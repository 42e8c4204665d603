"""The course plan: the order in which a student does the exercises, and how long each takes.

scripts/handout.py writes both into the handout's EXERCISES.md and refuses to write a handout
when this plan and scripts/course/exercises.py disagree (problems() below). The grader does not
read this file, so it stays out of the handout.

Order: the chapters' order; within a chapter, a host model before the kernel it describes
(03.1 before 03.2, 06.2's phase clock before 06.1, which times its phases with it), and every
exercise after the ones it builds on (`needs` in exercises.py).
Minutes: an estimate for writing and grading one exercise, after reading the lesson up to it;
a chapter's sum stays within the exercise time its lesson's "Time" line gives.
"""

ORDER = [
    "01.1", "01.2",
    "02.1", "02.2", "02.3",
    "03.1", "03.2", "03.3", "03.4", "03.5",
    "04.1", "04.2", "04.3", "04.4",
    "05.1",
    "06.2", "06.1",
]

MINUTES = {
    "01.1": 25, "01.2": 35,                                     # chapter 01: 1 hour
    "02.1": 40, "02.2": 50, "02.3": 60,                         # chapter 02: 2-3 hours
    "03.1": 25, "03.2": 30, "03.3": 35, "03.4": 40, "03.5": 50,  # chapter 03: 3 hours
    "04.1": 25, "04.2": 25, "04.3": 45, "04.4": 45,             # chapter 04: 2-3 hours
    "05.1": 90,                                                 # chapter 05: 1-2 hours
    "06.2": 30, "06.1": 30,                                     # chapter 06: 1 hour
}


def problems(exercises):
    """What makes the plan disagree with `exercises` (exercises.py's EXERCISES); empty when none."""
    out = []
    twice = sorted({ex for ex in ORDER if ORDER.count(ex) > 1})
    missing = sorted(set(exercises) - set(ORDER))
    unknown = sorted(set(ORDER) - set(exercises))
    if twice or missing or unknown:
        out.append(f"ORDER: twice {twice or 'none'}, missing {missing or 'none'}, unknown {unknown or 'none'}")
    if set(MINUTES) != set(exercises):
        out.append(f"MINUTES: missing {sorted(set(exercises) - set(MINUTES)) or 'none'}, "
                   f"unknown {sorted(set(MINUTES) - set(exercises)) or 'none'}")
    for ex in ORDER:
        for need in exercises.get(ex, {}).get("needs", []):
            if need in ORDER and ORDER.index(need) > ORDER.index(ex):
                out.append(f"ORDER: {ex} comes before {need}, which it needs")
    return out
