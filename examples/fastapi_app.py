"""A small notes API keyed by Snowflake ids: strings on the wire, ``SnowId`` in Python.

    pip install 'snowid[fastapi]' uvicorn
    SNOWID_LEASE=file: uvicorn examples.fastapi_app:app        # the processes of one host
    SNOWID_LEASE=postgresql://HOST/DB uvicorn ...               # several hosts, one database

Every id leaves as a decimal string (JavaScript would round a JSON number above 2^53),
arrives as a string or a number, and is checked by snowid: a bad one is a 422 that says
what is wrong. The OpenAPI document describes ids as strings of digits, so generated
clients keep them as strings. Ids sort by creation time: ``?since_id=`` pages by time
with no timestamp column.
"""

from __future__ import annotations

import datetime as dt

from fastapi import FastAPI, HTTPException
from pydantic import BaseModel, Field, computed_field

import snowid
from snowid import SnowId


class NoteIn(BaseModel):
    text: str = Field(min_length=1, max_length=1000)
    reply_to: SnowId | None = None


class Note(NoteIn):
    id: SnowId = Field(default_factory=snowid.next_id)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def created(self) -> dt.datetime:
        return self.id.datetime  # the id carries its own creation time


app = FastAPI(title="notes (snowid example)")
NOTES: dict[SnowId, Note] = {}  # a database table in a real application


@app.post("/notes", status_code=201)
async def create_note(note_in: NoteIn) -> Note:
    if note_in.reply_to is not None and note_in.reply_to not in NOTES:
        raise HTTPException(404, f"note {note_in.reply_to} does not exist")
    note = Note(id=await snowid.anext_id(), **note_in.model_dump())
    NOTES[note.id] = note
    return note


@app.get("/notes/{note_id}")
async def get_note(note_id: SnowId) -> Note:
    note = NOTES.get(note_id)
    if note is None:
        raise HTTPException(404, f"note {note_id} does not exist")
    return note


@app.get("/notes")
async def list_notes(since_id: SnowId | None = None, limit: int = 50) -> list[Note]:
    """Notes after ``since_id`` (exclusive), oldest first: ids sort by creation time."""
    ids = sorted(i for i in NOTES if since_id is None or i > since_id)
    return [NOTES[i] for i in ids[:limit]]
