"""The form field and widget of ``SnowIdField``: decimal digits in, the id's time shown."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.html import format_html
from django.utils.safestring import SafeString

from snowid._exceptions import InvalidValueError
from snowid._isotime import iso_utc
from snowid.i18n import DEFAULT_LANG, normalize_lang, translate
from snowid.ids import SnowId, to_snowid

__all__ = [
    "SnowIdFormField",
    "SnowIdKeyFormField",
    "SnowIdKeyWidget",
    "SnowIdWidget",
    "django_lang",
]


def django_lang() -> str:
    """snowid's catalog language for Django's active language (English unless Vietnamese)."""
    from django.utils.translation import get_language

    return normalize_lang(get_language()) or DEFAULT_LANG


def _valid(value: object) -> SnowId | None:
    try:
        return None if value is None or value == "" else to_snowid(value)
    except InvalidValueError:
        return None


class SnowIdWidget(forms.TextInput):  # type: ignore[misc]  # Django has no types
    """A text box of decimal digits, followed by the id's UTC time (read-only text).

    Not a number box: browsers keep those as floating-point numbers, which cannot hold
    every id above 2^53 (``9223372036854775807`` would come back as ...5808).
    """

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        defaults = {"inputmode": "numeric", "pattern": "[0-9]{1,19}", "autocomplete": "off"}
        super().__init__({**defaults, **(attrs or {})})

    def format_value(self, value: Any) -> str | None:
        if value is None or value == "":
            return None
        return str(value)  # a SnowId or an int as its digits; text as typed

    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None
    ) -> SafeString:
        html: SafeString = super().render(name, value, attrs, renderer)
        made = _valid(value)
        return html if made is None else html + format_html(" {}", _time_html(made))


def _time_html(made: SnowId) -> SafeString:
    when = iso_utc(made.datetime)
    label = translate("django.made_at", django_lang(), time=when)
    return format_html(
        '<time class="snowid-time" datetime="{}" title="{}">{}</time>', when, label, when
    )


class SnowIdKeyWidget(forms.Widget):  # type: ignore[misc]  # Django has no types
    """A primary key shown, never asked for: its digits and its UTC time, no input box
    (on an add form, a note that the id is drawn when the row is saved)."""

    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None
    ) -> SafeString:
        made = _valid(value)
        if made is None:
            note = translate("django.new_key", django_lang())
            return format_html('<span class="snowid-id snowid-new">{}</span>', note)
        return format_html('<span class="snowid-id">{}</span> {}', str(made), _time_html(made))

    def value_from_datadict(self, data: Any, files: Any, name: str) -> None:
        del data, files, name  # whatever a request sends for a key is not read


class SnowIdFormField(forms.CharField):  # type: ignore[misc]  # Django has no types
    """A form field whose cleaned value is a ``SnowId`` (or None when left empty).

    Takes what the model field, pydantic and DRF take (an id, an int, or the decimal
    digits alone: one tier of input, "lenient for programs"); anything else is a
    ``ValidationError`` carrying snowid's message (code: the snowid error's code), which
    names ``field_name`` (a model's ``SnowIdField`` passes its own name; a form field does
    not know the name it is bound to, so a plain one says "ID"). Digits with spaces around
    them are refused as everywhere else (``contains_spaces``, which quotes the value so
    the space shows), not trimmed; a box holding only spaces is left empty, as Django
    reads every blank field.
    """

    widget = SnowIdWidget

    def __init__(self, *, field_name: str = "id", **kwargs: Any) -> None:
        self.field_name = field_name
        kwargs.setdefault("empty_value", None)
        kwargs["strip"] = False  # " 42" is refused by to_snowid, with its own words
        for unused in ("max_length", "min_length"):  # set by the digits, not by callers
            kwargs.pop(unused, None)
        super().__init__(**kwargs)

    def prepare_value(self, value: Any) -> Any:
        return str(value) if isinstance(value, SnowId) else value

    def to_python(self, value: Any) -> SnowId | None:
        if isinstance(value, SnowId):
            return value
        if not isinstance(value, str) and value is not None:
            text: Any = value  # an int or a float from a JSON body: to_snowid judges it
        else:
            text = super().to_python(value)  # empty is None
            if text is None or not text.strip():
                return None
        try:
            return to_snowid(text, self.field_name)
        except InvalidValueError as error:
            raise ValidationError(error.message(django_lang()), code=error.code) from None

    def has_changed(self, initial: Any, data: Any) -> bool:
        # The hidden initial comes back as text, the data as a SnowId: compare ids.
        if self.disabled:
            return False
        try:
            return self.to_python(initial) != self.to_python(data)
        except ValidationError:
            return True


class _KeyBoundField(forms.BoundField):  # type: ignore[misc]  # Django has no types
    def value(self) -> Any:
        instance = getattr(self.form, "instance", None)
        state = getattr(instance, "_state", None)
        if state is not None and state.adding:
            return None  # the id drawn for this page is not the one the save will keep
        return super().value()


class SnowIdKeyFormField(SnowIdFormField):
    """The form field of a ``SnowIdField`` primary key: shown read-only, never taken.

    Disabled, so Django keeps the instance's own id whatever the request sends: a
    ModelForm (and so the admin) cannot copy a row by editing its key, and a new row's
    id is the one drawn when the form is posted, not when the add page was opened.
    """

    widget = SnowIdKeyWidget

    def __init__(self, **kwargs: Any) -> None:
        kwargs["disabled"] = True
        kwargs["required"] = False
        kwargs["show_hidden_initial"] = False  # Django's for a callable default: not needed
        super().__init__(**kwargs)

    def get_bound_field(self, form: Any, field_name: str) -> forms.BoundField:
        return _KeyBoundField(form, self, field_name)
