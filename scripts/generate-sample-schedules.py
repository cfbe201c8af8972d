#!/usr/bin/env python3
"""Writes the project's own sample schedules into Data/schedules: fictional conferences in frab XML, frab JSON and
iCalendar. The data is made up here; run this script again after changing it."""
import json
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr
from zoneinfo import ZoneInfo

OUT = Path(__file__).resolve().parent.parent / "Data" / "schedules"
NS = uuid.UUID("6f1c0c62-4f7e-4a3b-9d2e-0a9b5f0c1d11")

SPEAKERS = ["Ada Example", "Grace Sample", "Linus Placeholder", "Margaret Testcase", "Ken Fixture", "Barbara Mock",
            "Dennis Stub", "Frances Dummy", "Edsger Demo", "Radia Prototype"]
TOPICS = ["Structured concurrency in practice", "Faulting large object graphs", "Predicates you can read",
          "Swift on the server, five years in", "SQLite as an application file format", "Zero-copy parsing",
          "Observability without tears", "Designing wire protocols", "Crash-safe file writes",
          "Testing daemons end to end", "The art of the small binary format", "Calendars are hard",
          "Time zones for the rest of us", "Unicode case folding explained", "Back-pressure in NIO",
          "From XML to structs, fast", "Keeping favourites across schedule updates", "Lightning talks"]


def sessions_for(acronym, days, rooms, tz, first_hour=9, count=18, seed=0):
    zone = ZoneInfo(tz)
    sessions = []
    for index in range(count):
        day = days[index % len(days)]
        room = rooms[(index // len(days)) % len(rooms)]
        slot = index // (len(days) * len(rooms))
        start = datetime.fromisoformat(day).replace(hour=first_hour + slot * 2, minute=30 if index % 3 == 0 else 0,
                                                    tzinfo=zone)
        if index == count - 1:
            start = datetime.fromisoformat(day).replace(hour=23, minute=30, tzinfo=zone)  # runs past midnight
        duration = [30, 45, 60, 90][(index + seed) % 4]
        topic = TOPICS[(index + seed) % len(TOPICS)]
        persons = [SPEAKERS[(index + seed) % len(SPEAKERS)]]
        if index % 4 == 1:
            persons.append(SPEAKERS[(index + seed + 3) % len(SPEAKERS)])
        sessions.append({
            "id": 100 + index, "guid": str(uuid.uuid5(NS, f"{acronym}-{index}")), "day": day, "room": room,
            "start": start, "duration": duration, "title": topic,
            "subtitle": "" if index % 2 else "A sample session",
            "track": ["Core", "Storage", "Operations"][index % 3], "type": "lecture" if index % 5 else "workshop",
            "language": "en", "abstract": f"<p>{topic}: what we learned, with <em>examples</em> & pitfalls.</p>",
            "persons": persons, "slug": f"{acronym}-{100 + index}",
        })
    return sessions


def hhmm(minutes):
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def write_frab_xml(path, acronym, title, days, rooms, tz, sessions):
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<schedule>",
             '  <generator name="almanac-sample-generator" version="1.0"/>', "  <version>1.1</version>",
             "  <conference>", f"    <acronym>{acronym}</acronym>", f"    <title>{escape(title)}</title>",
             f"    <start>{days[0]}</start>", f"    <end>{days[-1]}</end>", f"    <days>{len(days)}</days>",
             "    <timeslot_duration>00:15</timeslot_duration>", f"    <time_zone_name>{tz}</time_zone_name>",
             "  </conference>"]
    zone = ZoneInfo(tz)
    for number, day in enumerate(days, 1):
        day_start = datetime.fromisoformat(day).replace(hour=8, tzinfo=zone)
        day_end = day_start + timedelta(hours=19)
        lines.append(f'  <day index="{number}" date="{day}" start="{day_start.isoformat()}" end="{day_end.isoformat()}">')
        for room in rooms:
            lines.append(f"    <room name={quoteattr(room)}>")
            for s in [s for s in sessions if s["day"] == day and s["room"] == room]:
                lines += [f'      <event guid="{s["guid"]}" id="{s["id"]}">',
                          f'        <date>{s["start"].isoformat()}</date>',
                          f'        <start>{s["start"].strftime("%H:%M")}</start>',
                          f'        <duration>{hhmm(s["duration"])}</duration>',
                          f'        <room>{escape(room)}</room>', f'        <slug>{s["slug"]}</slug>',
                          f'        <url>https://example.org/{acronym}/talk/{s["id"]}</url>',
                          f'        <title>{escape(s["title"])}</title>',
                          f'        <subtitle>{escape(s["subtitle"])}</subtitle>',
                          f'        <track>{s["track"]}</track>', f'        <type>{s["type"]}</type>',
                          f'        <language>{s["language"]}</language>',
                          f'        <abstract>{escape(s["abstract"])}</abstract>',
                          "        <description></description>", "        <persons>"]
                for p in s["persons"]:
                    lines.append(f'          <person id="{SPEAKERS.index(p) + 1}">{escape(p)}</person>')
                lines += ["        </persons>", "        <links/>", "      </event>"]
            lines.append("    </room>")
        lines.append("  </day>")
    lines.append("</schedule>")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_frab_json(path, acronym, title, days, rooms, tz, sessions):
    zone = ZoneInfo(tz)
    json_days = []
    for number, day in enumerate(days, 1):
        day_start = datetime.fromisoformat(day).replace(hour=8, tzinfo=zone)
        json_days.append({
            "index": number, "date": day, "day_start": day_start.isoformat(),
            "day_end": (day_start + timedelta(hours=19)).isoformat(),
            "rooms": {room: [{
                "id": s["id"], "guid": s["guid"], "date": s["start"].isoformat(),
                "start": s["start"].strftime("%H:%M"), "duration": hhmm(s["duration"]), "room": room,
                "slug": s["slug"], "url": f"https://example.org/{acronym}/talk/{s['id']}", "title": s["title"],
                "subtitle": s["subtitle"], "track": s["track"], "type": s["type"], "language": s["language"],
                "abstract": s["abstract"], "description": "",
                "persons": [{"id": SPEAKERS.index(p) + 1, "public_name": p} for p in s["persons"]], "links": [],
            } for s in sessions if s["day"] == day and s["room"] == room] for room in rooms},
        })
    document = {"schedule": {"version": "1.0", "base_url": f"https://example.org/{acronym}/", "conference": {
        "acronym": acronym, "title": title, "start": days[0], "end": days[-1], "daysCount": len(days),
        "timeslot_duration": "00:15", "time_zone_name": tz, "days": json_days}}}
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def fold(line):
    data = line.encode("utf-8")
    out, current = [], b""
    for char in line:
        encoded = char.encode("utf-8")
        if len(current) + len(encoded) > (75 if not out else 74):
            out.append(current)
            current = b""
        current += encoded
    out.append(current)
    return b"\r\n ".join(out).decode("utf-8") if data else line


def ics_text(text):
    return text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def write_ics(path, acronym, title, tz, sessions):
    stamp = "20261101T120000Z"
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Sample generator//EN", "CALSCALE:GREGORIAN",
             f"X-WR-CALNAME:{ics_text(title)}", f"X-WR-TIMEZONE:{tz}"]
    for s in sessions:
        start = s["start"]
        end = start + timedelta(minutes=s["duration"])
        lines += ["BEGIN:VEVENT", f"UID:{s['guid']}@example.org", f"DTSTAMP:{stamp}",
                  f"DTSTART;TZID={tz}:{start.strftime('%Y%m%dT%H%M%S')}",
                  f"DTEND;TZID={tz}:{end.strftime('%Y%m%dT%H%M%S')}", f"SUMMARY:{ics_text(s['title'])}",
                  f"LOCATION:{ics_text(s['room'])}", f"CATEGORIES:{ics_text(s['track'])}",
                  f"DESCRIPTION:{ics_text(s['abstract'] + chr(10) + 'Speakers: ' + ', '.join(s['persons']))}",
                  f"URL:https://example.org/{acronym}/talk/{s['id']}", "END:VEVENT"]
    # A weekly meetup with one cancelled and one moved instance, to show recurrence handling.
    lines += ["BEGIN:VEVENT", f"UID:{uuid.uuid5(NS, acronym + '-meetup')}@example.org", f"DTSTAMP:{stamp}",
              f"DTSTART;TZID={tz}:20261124T190000", "DURATION:PT1H30M", "RRULE:FREQ=WEEKLY;COUNT=4;BYDAY=TU",
              f"EXDATE;TZID={tz}:20261208T190000", "SUMMARY:Open data meetup (weekly)", "LOCATION:Library Café",
              "END:VEVENT",
              "BEGIN:VEVENT", f"UID:{uuid.uuid5(NS, acronym + '-meetup')}@example.org", f"DTSTAMP:{stamp}",
              f"RECURRENCE-ID;TZID={tz}:20261201T190000", f"DTSTART;TZID={tz}:20261201T200000",
              "DURATION:PT1H", "SUMMARY:Open data meetup (moved to 20:00)", "LOCATION:Library Café", "END:VEVENT"]
    lines.append("END:VCALENDAR")
    path.write_bytes(("\r\n".join(fold(line) for line in lines) + "\r\n").encode("utf-8"))


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    days = ["2026-11-23", "2026-11-24"]
    rooms = ["Hall A", "Hall B", "Workshop Room 2", "Workshop Room 10"]
    ssd = sessions_for("ssd26", days, rooms, "Europe/Berlin")
    write_frab_xml(OUT / "swift-server-days-2026.xml", "ssd26", "Swift Server Days 2026", days, rooms,
                   "Europe/Berlin", ssd)
    lpc_days = ["2026-11-25", "2026-11-26", "2026-11-27"]
    lpc_rooms = ["Main Stage", "Track Room"]
    lpc = sessions_for("lpc26", lpc_days, lpc_rooms, "America/New_York", first_hour=10, count=14, seed=5)
    write_frab_json(OUT / "plumbing-camp-2026.json", "lpc26", "Plumbing Camp 2026", lpc_days, lpc_rooms,
                    "America/New_York", lpc)
    ode = sessions_for("ode26", ["2026-11-24"], ["Auditorium", "Café"], "Australia/Brisbane", first_hour=17,
                       count=6, seed=9)
    write_ics(OUT / "open-data-evening-2026.ics", "ode26", "Open Data Evening 2026", "Australia/Brisbane", ode)


if __name__ == "__main__":
    main()
