#!/usr/bin/env python3
"""Writes eval/content.jsonl: labelled documents for sorting by meaning (organize-by-content).

Each line: {"name", "format" (pdf|docx|md|txt), "category", "title", "text"}. `scope-weaver
eval-sort --file eval/content.jsonl` writes them as real files (PDF with a text layer, DOCX,
Markdown, text) and scores the classifier. Seeded: the same file on every run. File names are
mostly uninformative ("scan_0042.pdf"), so the text has to carry the category.
"""
import json
import random
import sys

R = random.Random(20261125)
PEOPLE = ["Anna Keller", "Ben Ortiz", "Carla Nguyen", "David Smith", "Eva Rossi", "Farid Haddad",
          "Grace Lee", "Hugo Martin", "Ines Duarte", "Jonas Berg", "Kim Park", "Lena Weber"]
COMPANIES = ["ACME GmbH", "Northwind Ltd", "Blue Harbor Plumbing", "Stadtwerke Nord", "Brightline Telecom",
             "Koch & Sons Carpentry", "Cloudnine Hosting", "Greenleaf Garden Services", "Metro Office Supply"]
CITIES = ["Lisbon", "Vienna", "Kyoto", "Montreal", "Edinburgh", "Barcelona", "Oslo", "Athens", "Prague"]


def pick(xs, k=1):
    return R.sample(xs, k) if k > 1 else R.choice(xs)


def money():
    return f"{R.randint(20, 2400)}.{R.randint(0, 99):02d}"


def invoice():
    c, p = pick(COMPANIES), pick(PEOPLE)
    amount = money()
    lines = [
        f"Invoice no. {R.randint(1000, 9999)} from {c}.",
        f"Bill to: {p}.",
        f"{pick(['Consulting services', 'Repair of the kitchen sink', 'Monthly internet plan', 'Electricity for March', 'Web hosting, 12 months', 'Printer paper and toner', 'Garden maintenance'])}: {amount} EUR.",
        f"VAT {pick(['19', '20', '7'])}% included. Total due: {amount} EUR.",
        f"Please pay within {pick(['14', '30'])} days by bank transfer to IBAN DE{R.randint(10, 99)} 1000 0000 {R.randint(1000, 9999)}.",
        pick(["Late payments incur a fee.", "Thank you for your business.", "Payment terms: net 30.",
              "Reference the invoice number with your payment.", "Outstanding balance from the previous bill: 0.00 EUR."]),
    ]
    return "Invoices", " ".join(R.sample(lines[:2], 2) + lines[2:])


def recipe():
    dish = pick(["Banana bread", "Tomato soup", "Lentil curry", "Apple pie", "Mushroom risotto", "Pancakes",
                 "Greek salad", "Chili con carne", "Pumpkin soup", "Lemon cake", "Pasta carbonara"])
    ing = pick(["flour", "butter", "sugar", "eggs", "onions", "garlic", "olive oil", "milk", "rice", "tomatoes",
                "lentils", "cream", "parmesan", "salt and pepper", "cinnamon", "baking powder"], 5)
    steps = [
        f"{dish}. Serves {R.randint(2, 6)}.",
        f"Ingredients: {', '.join(ing)}.",
        pick(["Preheat the oven to 180 degrees.", "Heat the oil in a large pan.", "Bring a pot of salted water to the boil."]),
        pick(["Chop the onions and fry them until golden.", "Whisk the eggs with the sugar.", "Stir in the flour a spoon at a time."]),
        pick(["Simmer for 20 minutes, stirring now and then.", "Bake for 45 minutes until a skewer comes out clean.",
              "Season to taste and serve warm."]),
        pick(["Tastes even better the next day.", "Garnish with fresh herbs.", "Keeps in the fridge for three days."]),
    ]
    return "Recipes", " ".join(steps)


def minutes():
    who = pick(PEOPLE, 3)
    text = [
        f"Minutes of the {pick(['weekly team', 'project', 'board', 'parents council', 'neighbourhood association', 'planning'])} meeting, {R.randint(1, 28)} {pick(['March', 'May', 'June', 'October'])}.",
        f"Attendees: {', '.join(who)}. Apologies: {pick(PEOPLE)}.",
        f"Agenda: {pick(['budget review', 'release plan', 'hiring', 'the summer fair', 'office move'])}; {pick(['open issues', 'any other business', 'next steps'])}.",
        f"Decision: {pick(['the release moves to April', 'the budget is approved', 'we hire one more engineer', 'the fair takes place in the park'])}.",
        f"Action items: {who[0]} to {pick(['draft the announcement', 'book the venue', 'send the figures', 'update the roadmap'])}; {who[1]} to follow up.",
        f"Next meeting: {pick(['Thursday at 10:00', 'in two weeks', 'Monday 9 am'])}.",
    ]
    return "Meeting notes", " ".join(text)


def cv():
    p = pick(PEOPLE)
    text = [
        f"Curriculum vitae. {p}.",
        f"Experience: {pick(['software engineer', 'nurse', 'accountant', 'teacher', 'project manager', 'graphic designer'])} at {pick(COMPANIES)}, {R.randint(2010, 2018)} to {R.randint(2019, 2025)}.",
        f"Education: {pick(['MSc Computer Science', 'BA Economics', 'Diploma in Nursing', 'BSc Mathematics'])}, University of {pick(CITIES)}.",
        f"Skills: {', '.join(pick(['Python', 'Excel', 'team leadership', 'public speaking', 'German', 'Spanish', 'SQL', 'budgeting'], 3))}.",
        pick(["References available on request.", "Languages: English (native), French (fluent).", "Hobbies: climbing and chess."]),
        pick(["Looking for a position where I can grow.", "Career objective: to lead a small team.", "Driving licence: B."]),
    ]
    return "CVs", " ".join(text)


def contract():
    a, b = pick(PEOPLE, 2)
    kind = pick(["Lease agreement", "Employment contract", "Service agreement", "Sales contract", "Non-disclosure agreement"])
    text = [
        f"{kind} between {a} (the first party) and {b} (the second party).",
        f"The term of this agreement is {pick(['twelve months', 'two years', 'indefinite'])}, starting on {R.randint(1, 28)} {pick(['January', 'April', 'September'])}.",
        pick(["The tenant shall pay the rent monthly in advance.", "The employee is entitled to 28 days of paid leave.",
              "The provider shall deliver the services described in annex A.", "The buyer acquires the goods as seen."]),
        pick(["Either party may terminate this agreement with three months' notice.", "Confidential information shall not be disclosed to third parties."]),
        "This agreement is governed by the laws of the state in which it is signed.",
        f"Signed in {pick(CITIES)} by both parties.",
    ]
    return "Contracts", " ".join(text)


def travel():
    a, b = pick(CITIES, 2)
    text = [
        pick([f"Booking confirmation: flight {pick(['LH', 'BA', 'AF', 'TP'])} {R.randint(100, 999)} from {a} to {b}.",
              f"Your train ticket from {a} to {b}, coach {R.randint(1, 12)}, seat {R.randint(1, 80)}."]),
        f"Departure {R.randint(6, 21)}:{R.choice(['05', '20', '40'])}, boarding closes 20 minutes before.",
        f"Hotel {pick(['Riverside', 'Central', 'Old Town', 'Harbour View'])} in {b}: check-in 15:00, {R.randint(2, 7)} nights.",
        pick(["Bring your passport.", "Baggage allowance: one cabin bag.", "Itinerary attached.", "Car rental pick-up at the airport."]),
        pick(["Have a pleasant trip!", "Manage your booking online.", "Travel insurance is included."]),
    ]
    return "Travel", " ".join(text)


def health():
    p = pick(PEOPLE)
    text = [
        f"Patient: {p}. Date of visit: {R.randint(1, 28)}.{R.randint(1, 12)}.{R.randint(2022, 2025)}.",
        f"Diagnosis: {pick(['seasonal allergy', 'sprained ankle', 'mild hypertension', 'bronchitis', 'vitamin D deficiency'])}.",
        f"Prescription: {pick(['ibuprofen 400 mg', 'amoxicillin 500 mg', 'cetirizine 10 mg', 'vitamin D 1000 IU'])}, {pick(['twice', 'three times', 'once'])} daily for {R.randint(5, 30)} days.",
        pick(["Blood pressure 135/85. Pulse 72.", "Blood test results are within the normal range.", "X-ray shows no fracture."]),
        pick(["Follow-up appointment with the doctor in four weeks.", "Rest and plenty of fluids.", "Referral to a specialist."]),
    ]
    return "Health", " ".join(text)


def manual():
    device = pick(["coffee machine", "wireless router", "washing machine", "electric kettle", "robot vacuum", "smart thermostat"])
    text = [
        f"User manual for the {device}, model {pick(['X', 'Pro', 'S'])}{R.randint(100, 900)}.",
        "Read these safety instructions before first use.",
        f"To switch the {device} on, press and hold the power button for three seconds.",
        pick(["Troubleshooting: if the light blinks red, unplug the device and wait ten seconds.",
              "To reset to factory settings, hold the reset button with a paper clip.",
              "Clean the filter once a month with warm water."]),
        pick(["The warranty covers defects for two years.", "Technical specifications: 230 V, 50 Hz, 1200 W.",
              "Do not immerse the device in water."]),
    ]
    return "Manuals", " ".join(text)


MAKERS = [invoice, recipe, minutes, cv, contract, travel, health, manual]
FORMATS = ["pdf", "docx", "md", "txt"]


def main(out):
    rows = []
    n = 0
    for round_ in range(30):
        for make in MAKERS:
            category, text = make()
            fmt = FORMATS[(n + round_) % 4]
            n += 1
            name = pick([f"scan_{n:04d}", f"document ({n})", f"doc{n}", f"IMG_{4000 + n}", f"download_{n}"])
            title = text.split(".")[0][:60]
            rows.append({"name": f"{name}.{fmt}", "format": fmt, "category": category, "title": title, "text": text})
    R.shuffle(rows)
    with open(out, "w") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"{out}: {len(rows)} documents in {len(MAKERS)} categories")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "eval/content.jsonl")
